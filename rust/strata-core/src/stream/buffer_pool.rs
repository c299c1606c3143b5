//! A bounded pool of spent buffers that the main thread hands back to the workers.
//!
//! The main thread gives and never waits: [`BufferPool::give`] only *tries* the lock, and when a
//! worker holds it (or the pool is full) the buffer comes back to the caller to drop. A channel
//! does not promise that: a bounded crossbeam channel's `try_send` spins while a receiver that
//! claimed a slot has not released it, and the workers run at idle priority, so one descheduled
//! in that window held the main thread (law "The main thread never waits"). Workers take with
//! the lock, which they may wait for.
//!
//! May use: `std` only.

use std::sync::{Mutex, PoisonError};

/// At most `capacity` buffers, last given first taken (the warmest pages first).
pub(crate) struct BufferPool<T> {
    slots: Mutex<Vec<T>>,
    capacity: usize,
}

impl<T> BufferPool<T> {
    pub(crate) fn new(capacity: usize) -> Self {
        Self { slots: Mutex::new(Vec::with_capacity(capacity)), capacity }
    }

    /// Keeps `item` for a worker when the pool is free and has room; otherwise hands it back
    /// (the caller drops it). Never blocks.
    pub(crate) fn give(&self, item: T) -> Option<T> {
        match self.slots.try_lock() {
            Ok(mut slots) if slots.len() < self.capacity => {
                slots.push(item);
                None
            }
            _ => Some(item),
        }
    }

    /// A kept buffer, if one waits. Waits for the lock (workers only).
    pub(crate) fn take(&self) -> Option<T> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner).pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn giving_back_never_waits_for_a_worker_that_holds_the_pool() {
        let pool = BufferPool::new(2);
        let held = pool.slots.lock().unwrap();
        assert_eq!(pool.give(1), Some(1), "handed back at once while a worker holds the lock");
        drop(held);
        assert_eq!(pool.give(1), None);
        assert_eq!(pool.give(2), None);
        assert_eq!(pool.give(3), Some(3), "full: handed back");
        assert_eq!(pool.take(), Some(2));
        assert_eq!(pool.take(), Some(1));
        assert_eq!(pool.take(), None);
    }
}
