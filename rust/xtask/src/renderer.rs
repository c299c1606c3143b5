//! The two renderers Strata's rendered frames are made on (the rendered checks of `cargo xtask
//! test` and `cargo xtask screenshots`): Godot's command-line arguments for each, and the check
//! that Godot really ran on the one asked for (it falls back to OpenGL 3 by itself when Vulkan
//! fails).
//!
//! May use: nothing else of xtask.

/// The renderers the rendered checks use: the two a shipped game picks between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renderer {
    /// Compatibility on OpenGL 3 (Mesa llvmpipe): what the fallback and the web use.
    Compatibility,
    /// Forward+ on Vulkan (Mesa lavapipe): the project's own renderer.
    ForwardPlus,
}

impl Renderer {
    /// Godot's command-line arguments for it.
    pub fn args(self) -> [&'static str; 4] {
        match self {
            Renderer::Compatibility => ["--rendering-driver", "opengl3", "--rendering-method", "gl_compatibility"],
            Renderer::ForwardPlus => ["--rendering-driver", "vulkan", "--rendering-method", "forward_plus"],
        }
    }

    /// Where its screenshots go, under `<target>/screenshots/`.
    pub fn shots_dir(self) -> &'static str {
        match self {
            Renderer::Compatibility => "rendered-tests",
            Renderer::ForwardPlus => "rendered-tests/forward_plus",
        }
    }

    /// Problems when the output shows another renderer ran (Godot falls back to OpenGL 3
    /// by itself when Vulkan fails, and the checks would pass on the wrong renderer).
    pub fn check_output(self, lines: &[String]) -> Vec<String> {
        let banner = match self {
            Renderer::Compatibility => "- Compatibility -",
            Renderer::ForwardPlus => "- Forward+ -",
        };
        let mut problems = Vec::new();
        if !lines.iter().any(|l| l.contains(banner)) {
            let seen = lines.iter().find(|l| l.starts_with("Vulkan ") || l.starts_with("OpenGL API"));
            problems.push(format!(
                "Godot did not report the {self:?} renderer (`{banner}`); it said: {}",
                seen.map_or("no renderer line", |l| l.trim())
            ));
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_check_on_the_wrong_renderer_fails() {
        let vulkan =
            vec!["Vulkan 1.4.354 - Forward+ - Using Device #0: Unknown - llvmpipe (LLVM 22.1.8, 256 bits)".to_string()];
        let fallback = vec![
            "WARNING: Your video card drivers seem not to support the required Vulkan version, switching to OpenGL 3."
                .to_string(),
            "OpenGL API 4.6 (Core Profile) Mesa 26.2.6-1 - Compatibility - Using Device: Mesa - llvmpipe".to_string(),
        ];
        assert!(Renderer::ForwardPlus.check_output(&vulkan).is_empty());
        assert!(Renderer::Compatibility.check_output(&fallback).is_empty());
        let wrong = Renderer::ForwardPlus.check_output(&fallback);
        assert_eq!(wrong.len(), 1);
        assert!(wrong[0].contains("ForwardPlus") && wrong[0].contains("OpenGL API 4.6"), "{wrong:?}");
        assert!(!Renderer::Compatibility.check_output(&vulkan).is_empty());
    }
}
