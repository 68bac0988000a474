# Typed PRNG keys: per-step dropout keys are preallocated with the key dtype and filled in a
# fori_loop; a helper written for raw uint32 keys (jax.random.PRNGKey) then reads a word of one
# 0-d key from jax.random.key, and indexing it fails under jit.
import jax
import jax.numpy as jnp
import numpy as np


def init(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [{"w": jax.random.normal(k, (m, n)) / np.sqrt(m), "b": jnp.zeros(n)}
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def step_keys(key, steps):
    buffer = jnp.zeros((steps,), dtype=key.dtype)

    def fill(i, carry):
        keys, key = carry
        key, sub = jax.random.split(key)
        return keys.at[i].set(sub), key

    keys, _ = jax.lax.fori_loop(0, steps, fill, (buffer, key))
    return keys


def seed_word(key):
    # Written for raw keys: a (2,) uint32 array whose second word seeds a NumPy-style generator.
    return key[1]


@jax.jit
def forward(params, x, key):
    keys = step_keys(key, len(params))
    for layer, k in zip(params, keys):
        x = jnp.tanh(x @ layer["w"] + layer["b"])
        keep = jax.random.bernoulli(jax.random.fold_in(k, seed_word(k)), 0.9, x.shape)
        x = jnp.where(keep, x / 0.9, 0.0)
    return x


root = jax.random.key(0)
init_key, data_key, drop_key = jax.random.split(root, 3)
print("dropout key data", jax.random.key_data(drop_key))
params = init(init_key, [4, 8, 2])
x = jax.random.normal(data_key, (5, 4))
print(forward(params, x, drop_key).sum())
