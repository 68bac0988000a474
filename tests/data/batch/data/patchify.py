# Patch extraction for a vision model; the patch grid was computed for 8x8 patches, the images are 28x28.
import jax.numpy as jnp
import numpy as np

IMAGE, PATCH, CHANNELS = 28, 8, 1


def patchify(images):
    n = images.shape[0]
    grid = IMAGE // PATCH
    patches = images.reshape(n, grid, PATCH, grid, PATCH, CHANNELS)
    return patches.transpose(0, 1, 3, 2, 4, 5).reshape(n, grid * grid, -1)


batch = jnp.asarray(np.random.default_rng(0).random((2, IMAGE, IMAGE, CHANNELS)), dtype=jnp.float32)
mean = batch.mean()
print("normalised", float(((batch - mean) / batch.std()).std()))
tokens = patchify(batch)
print(tokens.shape)
