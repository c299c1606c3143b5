//! `StrataChunkWorld2D`'s light: the queries (`get_light`, `get_sky_light`, `get_block_light`,
//! the core's [`light_at_2d`], exact anywhere), `light_enabled` and `daylight`, and the drawing.
//!
//! Drawing: each loaded chunk's light comes from the workers with its tiles
//! ([`strata_core::stream::lighting2d::ChunkLight2D`]: the light each tile of the chunk and a
//! one-tile ring is drawn with). The main thread only copies those bytes into a small RG8 texture
//! per chunk, on a `Sprite2D` over the chunk (an internal child of the light layer, drawn over the
//! tiles) that shows the texture's inner `n × n` texels stretched over the chunk's pixels with
//! linear filtering: each tile's light at its centre, blended across the tile's corners with its
//! neighbours (across chunk borders too: the ring holds the neighbours' light, law: Seamless).
//! One shared `CanvasItem` shader (`blend_mul`) turns the levels into brightness as the 3D block
//! shaders do (each level 80 % of the next, sky light scaled by `daylight`, block light warm)
//! and multiplies what lies under it.
//!
//! May use: `strata_core` (2D light, stream results), the parent module.

use super::{ChunkLightSprite, ChunkWorld2D};
use crate::base::ranges;
use godot::classes::canvas_item::TextureFilter;
use godot::classes::image::Format;
use godot::classes::node::InternalMode;
use godot::classes::{Image, ImageTexture, Node2D, Shader, ShaderMaterial, Sprite2D};
use godot::prelude::*;
use std::sync::Arc;
use strata_core::base::coords::{IVec3, voxel_in_world};
use strata_core::gen2d::ChunkCoord2D;
use strata_core::light::{Light, LightProps};
use strata_core::stream::lighting2d::{ChunkLight2D, light_at_2d};

/// The light layer's shader: levels (sky in red, block in green, 0–1 for 0–15) to a colour that
/// multiplies what is drawn under it. The curve and uniforms are the 3D block shaders'.
const LIGHT_SHADER: &str = r#"
shader_type canvas_item;
render_mode blend_mul, unshaded;

uniform float daylight : hint_range(0.0, 1.0) = 1.0;
// The share of sky light left at midnight.
uniform float night_sky = 0.35;
uniform vec3 block_light_color : source_color = vec3(1.0, 0.74, 0.45);
uniform float block_light_energy = 1.4;
// The least a tile is lit, so the darkest cave still shows its shapes faintly.
uniform float darkest = 0.015;

// Brightness of a light level 0–15: each level 80 % of the next, 0 dark.
float light_curve(float level) {
	return level <= 0.0 ? 0.0 : pow(0.8, 15.0 - level);
}

void fragment() {
	vec2 level = texture(TEXTURE, UV).rg * 15.0;
	float sky = max(light_curve(level.r * mix(night_sky, 1.0, daylight)), darkest);
	vec3 glow = block_light_color * block_light_energy * light_curve(level.g)
			* (1.0 - 0.8 * light_curve(level.r) * daylight);
	COLOR = vec4(min(vec3(sky) + glow, vec3(1.0)), 1.0);
}
"#;

#[godot_api(secondary)]
impl ChunkWorld2D {
    /// The light at tile `p`, 0 to 15: the brighter of its sky light and block light, as the
    /// whole world lit by its library's blocks has it (edits included, `light_enabled` or not). A
    /// query, exact wherever it is asked: it generates the tiles within 14 of `p` and walks their
    /// columns up to the sky; -1 while the world has no generator (an invalid preset).
    #[func]
    pub fn get_light(&mut self, p: Vector2i) -> i64 {
        self.light(p).map(|l| l.combined() as i64).unwrap_or(-1)
    }

    /// The sky light at tile `p`, 0 to 15 (15 under open sky), or -1 (see `get_light`).
    #[func]
    pub fn get_sky_light(&mut self, p: Vector2i) -> i64 {
        self.light(p).map(|l| l.sky() as i64).unwrap_or(-1)
    }

    /// The block light at tile `p` (from glowing blocks such as torches), 0 to 15, or -1 (see
    /// `get_light`).
    #[func]
    pub fn get_block_light(&mut self, p: Vector2i) -> i64 {
        self.light(p).map(|l| l.block() as i64).unwrap_or(-1)
    }

    /// The light tile `p` is drawn with now, as `Vector2i(sky, block)` levels 0 to 15: its own
    /// light, or for an opaque tile the brightest light beside it (the light falling on its
    /// sides); `Vector2i(-1, -1)` while its chunk shows no light (not loaded yet, or
    /// `light_enabled` off). What the screen shows, a frame's work behind `get_light` after an
    /// edit (for tests and tools).
    #[func]
    pub fn get_drawn_light(&self, p: Vector2i) -> Vector2i {
        let n = self.streamer.as_ref().map(|s| s.chunk_tiles()).unwrap_or(64);
        let c = ChunkCoord2D::containing(p.x, p.y, n);
        let Some(l) = self.light_sprites.get(&c) else { return Vector2i::new(-1, -1) };
        let (x0, y0) = c.min_tile(n);
        // The texture holds the chunk and a one-tile ring.
        let i = (((p.y - y0 + 1) * (n + 2) + (p.x - x0 + 1)) * 2) as usize;
        match l.drawn.get(i..i + 2) {
            Some(&[sky, block]) => Vector2i::new(sky as i32 / 17, block as i32 / 17),
            _ => Vector2i::new(-1, -1),
        }
    }
}

impl ChunkWorld2D {
    /// `light_enabled`'s setter: the workers light (or stop lighting) every loaded chunk again.
    pub(super) fn change_light_enabled(&mut self, value: bool) {
        self.light_enabled = value;
        let props = self.light_props();
        if let Some(s) = &mut self.streamer {
            s.set_light(props);
        }
        if !value {
            self.clear_light_sprites();
        }
    }

    /// `daylight`'s setter: clamped to 0..=1, passed to the light shader.
    pub(super) fn change_daylight(&mut self, value: f64) {
        self.daylight = ranges::float_in_range("StrataChunkWorld2D", "daylight", value, 0.0, 1.0, self.daylight);
        if let Some(m) = &mut self.light_material {
            m.set_shader_parameter("daylight", &(self.daylight as f32).to_variant());
        }
    }

    /// The light of tile `p` (beyond the world's bounds: open sky), or None without a generator.
    fn light(&mut self, p: Vector2i) -> Option<Light> {
        if !voxel_in_world(IVec3::new(p.x, p.y, 0)) {
            return Some(Light::new(15, 0));
        }
        let g = self.generator()?;
        let props = LightProps::from_library(&self.blocks);
        light_at_2d(&g, self.edits(), &props, p.x, p.y).ok()
    }

    /// What light the workers compute: the library's opacity and emission, when `light_enabled`.
    pub(super) fn light_props(&self) -> Option<Arc<LightProps>> {
        self.light_enabled.then(|| Arc::new(LightProps::from_library(&self.blocks)))
    }

    /// Shows chunk `c`'s light (`None`: shows none): its sprite's texture takes the drawn bytes.
    pub(super) fn apply_light(&mut self, c: ChunkCoord2D, light: Option<ChunkLight2D>) {
        let Some(light) = light.filter(|_| self.light_enabled) else {
            if let Some(mut old) = self.light_sprites.remove(&c) {
                old.sprite.queue_free();
            }
            return;
        };
        let n = self.streamer.as_ref().map(|s| s.chunk_tiles()).unwrap_or(64);
        let side = n + 2;
        if light.drawn.len() != (side * side * 2) as usize {
            return;
        }
        let Some(image) =
            Image::create_from_data(side, side, false, Format::RG8, &PackedByteArray::from(light.drawn.as_slice()))
        else {
            return;
        };
        if let Some(l) = self.light_sprites.get_mut(&c) {
            l.texture.update(&image);
            l.drawn = light.drawn;
            return;
        }
        let Some(texture) = ImageTexture::create_from_image(&image) else { return };
        let Some(mut root) = self.ensure_light_root() else { return };
        let px = self.tile_pixels();
        let (x0, y0) = c.min_tile(n);
        let mut sprite = Sprite2D::new_alloc();
        sprite.set_texture(&texture);
        sprite.set_use_parent_material(true);
        sprite.set_centered(false);
        sprite.set_region_enabled(true);
        sprite.set_region_rect(Rect2::new(Vector2::new(1.0, 1.0), Vector2::new(n as f32, n as f32)));
        sprite.set_scale(Vector2::new(px.x as f32, px.y as f32));
        // At world − origin, as every drawn thing (the origin moves it, `origin_2d`).
        sprite.set_position(self.local_of_tile_corner([x0, y0]));
        root.add_child(&sprite);
        self.light_sprites.insert(c, ChunkLightSprite { sprite, texture, drawn: light.drawn });
    }

    /// Drops every chunk's drawn light (light off, streaming stopped).
    pub(super) fn clear_light_sprites(&mut self) {
        for (_, mut l) in self.light_sprites.drain() {
            if l.sprite.is_instance_valid() {
                l.sprite.queue_free();
            }
        }
    }

    /// The node the chunks' light sprites live under: an internal child drawn over the tiles
    /// with the light shader, made on first use.
    fn ensure_light_root(&mut self) -> Option<Gd<Node2D>> {
        if let Some(r) = self.light_root.as_ref().filter(|r| r.is_instance_valid()) {
            return Some(r.clone());
        }
        let mut shader = Shader::new_gd();
        shader.set_code(LIGHT_SHADER);
        let mut material = ShaderMaterial::new_gd();
        material.set_shader(&shader);
        material.set_shader_parameter("daylight", &(self.daylight as f32).to_variant());
        let mut root = Node2D::new_alloc();
        root.set_name("Light");
        root.set_material(&material);
        // Children take the root's material and filter: one shader, linear light.
        root.set_texture_filter(TextureFilter::LINEAR);
        root.set_z_index(1);
        self.base_mut().add_child_ex(&root).internal(InternalMode::BACK).done();
        self.light_material = Some(material);
        self.light_root = Some(root.clone());
        Some(root)
    }
}
