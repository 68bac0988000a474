# Per-example augmentation with vmap, where the brightness offsets were built for another batch size.
import jax
import jax.numpy as jnp

BATCH = 6


def augment(image, offset, flip):
    image = jnp.where(flip, image[:, ::-1], image)
    return jnp.clip(image + offset, 0.0, 1.0)


images = jnp.linspace(0.0, 1.0, BATCH * 16).reshape(BATCH, 4, 4)
flips = jnp.arange(BATCH) % 2 == 0
offsets = jnp.full((8,), 0.05)
augmented = jax.vmap(augment)(images, offsets, flips)
print(augmented.mean())
