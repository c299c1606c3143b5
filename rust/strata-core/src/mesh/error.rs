//! What can go wrong when meshing: inputs that do not fit together.
//!
//! May use: `base`.

use crate::base::coords::IVec3;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MeshError {
    /// The light handed to [`crate::mesh::Mesher::mesh_lit`] covers another box than the voxels.
    #[error(
        "light covers {light_size:?} voxels from {light_min:?}, the voxels {voxels_size:?} from {voxels_min:?}: \
         the light must cover exactly the padded voxels (a chunk's light from light_chunk)"
    )]
    LightBox { voxels_min: IVec3, voxels_size: IVec3, light_min: IVec3, light_size: IVec3 },
}
