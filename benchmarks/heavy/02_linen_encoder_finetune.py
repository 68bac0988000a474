"""Pre-train a small Flax linen attention encoder on synthetic sensor sequences, then reuse it downstream.

The downstream task adds two engineered features (a moving average and a first difference) to every
time step, so its inputs have 8 channels where the pre-trained input projection was built for 6.
Applying the pre-trained parameters to the wider inputs fails inside linen's parameter check.

Modelled on https://github.com/octo-models/octo/issues/97 (a pre-trained Flax checkpoint applied to
inputs of a changed width: "Initializer expected to generate shape ... but got shape ... instead for
parameter "kernel"").
"""
import functools

import numpy as np
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax

SEQ = 24
CHANNELS = 6
D_MODEL = 32
HEADS = 4
SEED = 1


def synth_sequences(n, seed):
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 4 * np.pi, SEQ, dtype=np.float32)
    freqs = rng.uniform(0.5, 2.0, size=(n, CHANNELS, 1)).astype(np.float32)
    phases = rng.uniform(0, 2 * np.pi, size=(n, CHANNELS, 1)).astype(np.float32)
    x = np.sin(freqs * t + phases) + 0.1 * rng.normal(size=(n, CHANNELS, SEQ))
    x = x.transpose(0, 2, 1).astype(np.float32)
    y = (freqs[:, :, 0].mean(-1) * 2.0 + np.cos(phases[:, 0, 0])).astype(np.float32)
    return x, y


def add_features(x):
    """Downstream feature engineering: moving average and first difference of channel 0."""
    kernel = np.ones(3, dtype=np.float32) / 3
    ma = np.stack([np.convolve(s[:, 0], kernel, mode="same") for s in x])[..., None]
    diff = np.diff(x[:, :, :1], axis=1, prepend=x[:, :1, :1])
    return np.concatenate([x, ma, diff], axis=-1)


class EncoderBlock(nn.Module):
    @nn.compact
    def __call__(self, h):
        a = nn.MultiHeadDotProductAttention(num_heads=HEADS, qkv_features=D_MODEL)(nn.LayerNorm()(h))
        h = h + a
        m = nn.Dense(2 * D_MODEL)(nn.LayerNorm()(h))
        return h + nn.Dense(D_MODEL)(nn.gelu(m))


class Encoder(nn.Module):
    depth: int = 1

    @nn.compact
    def __call__(self, x):
        h = nn.Dense(D_MODEL, name="input_proj")(x)
        pos = self.param("pos_embed", nn.initializers.normal(0.02), (SEQ, D_MODEL))
        h = h + pos
        for _ in range(self.depth):
            h = EncoderBlock()(h)
        h = nn.LayerNorm()(h).mean(axis=1)
        return nn.Dense(1, name="head")(h)[:, 0]


model = Encoder()


def mse(params, x, y):
    pred = model.apply({"params": params}, x)
    return jnp.mean((pred - y) ** 2)


@functools.partial(jax.jit, static_argnums=(0,))
def train_step(tx, params, opt_state, x, y):
    loss, grads = jax.value_and_grad(mse)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


@jax.jit
def evaluate(params, x, y):
    return mse(params, x, y)


def pretrain(x, y, steps=12, batch=32):
    params = jax.jit(model.init)(jax.random.PRNGKey(SEED), jnp.zeros((1, SEQ, CHANNELS)))["params"]
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(1e-3))
    opt_state = tx.init(params)
    rng = np.random.default_rng(SEED)
    for step in range(steps):
        idx = rng.integers(0, len(x), size=batch)
        params, opt_state, loss = train_step(tx, params, opt_state, jnp.asarray(x[idx]), jnp.asarray(y[idx]))
        if step % 4 == 0:
            print(f"pretrain step {step}: loss {float(loss):.4f}")
    return params


def main():
    x, y = synth_sequences(512, SEED)
    params = pretrain(x, y)
    print("pretrain eval:", float(evaluate(params, jnp.asarray(x[:128]), jnp.asarray(y[:128]))))

    # downstream: same sensors, two extra engineered channels
    dx, dy = synth_sequences(128, SEED + 1)
    dx = add_features(dx)
    dx = (dx - dx.mean(axis=(0, 1))) / (dx.std(axis=(0, 1)) + 1e-6)
    print("downstream eval:", float(evaluate(params, jnp.asarray(dx), jnp.asarray(dy))))


if __name__ == "__main__":
    main()
