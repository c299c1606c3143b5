//! Life-like rules ("B3/S23", "B14-19/S13-26"): the one parser of the rule strings a preset
//! holds, into birth and survival bitmasks over neighbour counts.
//!
//! Validation and both cave automata (3D caverns, 2D side-view caves, through
//! [`crate::automata::cave_rules`]) call it. It lives with the preset because the preset's
//! validation needs it and `preset` comes before `automata`.
//!
//! May use: nothing of the crate.

use thiserror::Error;

/// Why a Life-like rule string ("B…/S…") does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LifeRuleError {
    #[error("`{0}` has no `/`")]
    NoSlash(String),
    #[error("`{part}` does not start with {letter}")]
    MissingLetter { part: String, letter: char },
    #[error("`{0}` is not a neighbour count")]
    NotACount(String),
    #[error("neighbour count {0} exceeds 26")]
    CountTooLarge(u32),
    #[error("range `{0}` runs backwards")]
    Backwards(String),
}

/// Parses "B3/S23" (or "B5678/S45678", or with comma lists and ranges "B13,14/S12-14") into
/// birth and survival bitmasks over neighbour counts 0..=26. Without `,` or `-` each digit is
/// one count. The one parser of Life rules: validation and both cave automata (3D caverns, 2D
/// side-view caves, through [`crate::automata::cave_rules`]) call it.
pub fn parse_life_rule(rule: &str) -> Result<(u32, u32), LifeRuleError> {
    let rule = rule.trim();
    let (b, s) = rule.split_once('/').ok_or_else(|| LifeRuleError::NoSlash(rule.into()))?;
    let part = |p: &str, letter: char| -> Result<u32, LifeRuleError> {
        let p = p.trim();
        let digits = p
            .strip_prefix(letter)
            .or_else(|| p.strip_prefix(letter.to_ascii_lowercase()))
            .ok_or_else(|| LifeRuleError::MissingLetter { part: p.into(), letter })?;
        let mut mask = 0u32;
        let listed = digits.contains(',') || digits.contains('-');
        let items: Vec<&str> =
            if listed { digits.split(',').collect() } else { digits.split("").filter(|d| !d.is_empty()).collect() };
        let count = |d: &str| -> Result<u32, LifeRuleError> {
            let n: u32 = d.trim().parse().map_err(|_| LifeRuleError::NotACount(d.into()))?;
            if n > 26 { Err(LifeRuleError::CountTooLarge(n)) } else { Ok(n) }
        };
        for d in items {
            let (lo, hi) = match d.split_once('-') {
                Some((a, b)) => (count(a)?, count(b)?),
                None => (count(d)?, count(d)?),
            };
            if lo > hi {
                return Err(LifeRuleError::Backwards(d.into()));
            }
            for n in lo..=hi {
                mask |= 1 << n;
            }
        }
        Ok(mask)
    };
    Ok((part(b, 'B')?, part(s, 'S')?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn life_rules_parse() {
        assert_eq!(parse_life_rule("B3/S23").unwrap(), (1 << 3, (1 << 2) | (1 << 3)));
        assert_eq!(parse_life_rule("B13,14/S12,13").unwrap(), ((1 << 13) | (1 << 14), (1 << 12) | (1 << 13)));
        assert!(parse_life_rule("B3S23").is_err());
        assert!(parse_life_rule("B3/S2,99").is_err());
        assert!(parse_life_rule("B3/Sx").is_err());
        assert_eq!(parse_life_rule("B14-16/S3,13-14").unwrap(), (0b111 << 14, (1 << 3) | (0b11 << 13)));
        assert!(parse_life_rule("B16-14/S1").is_err());
        assert!(parse_life_rule("B14-27/S1").is_err());
    }
}
