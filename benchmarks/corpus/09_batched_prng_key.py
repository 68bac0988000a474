# Bug: an array of split PRNG keys (one per example) is passed straight to jax.random.normal instead of vmapping over it
# Based on: https://github.com/jax-ml/jax/issues/19376
"""Denoising autoencoder on synthetic 8x8 blob images."""
import collections
import time

import jax
import jax.numpy as jnp
import numpy as np

HPARAMS = {
    "seed": 42,
    "img": 8,
    "n_images": 256,
    "latent": 12,
    "hidden": 48,
    "batch": 32,
    "epochs": 2,
    "lr": 0.05,
    "noise_std": 0.2,
    "weight_decay": 1e-4,
}


class Meter:
    def __init__(self):
        self.sums = collections.defaultdict(float)
        self.counts = collections.defaultdict(int)

    def update(self, **kv):
        for k, v in kv.items():
            self.sums[k] += float(v)
            self.counts[k] += 1

    def summary(self):
        return {k: self.sums[k] / self.counts[k] for k in self.sums}


def render_blobs(n, size, rng):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    cy = rng.uniform(1, size - 2, size=(n, 1, 1))
    cx = rng.uniform(1, size - 2, size=(n, 1, 1))
    r = rng.uniform(1.0, 2.5, size=(n, 1, 1))
    imgs = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r ** 2))
    return imgs.astype(np.float32)


def augment(batch, rng):
    flip = rng.rand(len(batch)) < 0.5
    batch = batch.copy()
    batch[flip] = batch[flip, :, ::-1]
    shift = rng.randint(-1, 2)
    return np.roll(batch, shift, axis=1)


def init(key, hp):
    d = hp["img"] * hp["img"]
    sizes = [d, hp["hidden"], hp["latent"], hp["hidden"], d]
    keys = jax.random.split(key, len(sizes) - 1)
    layers = []
    for k, fan_in, fan_out in zip(keys, sizes[:-1], sizes[1:]):
        w = jax.random.normal(k, (fan_in, fan_out)) * jnp.sqrt(1.0 / fan_in)
        layers.append((w, jnp.zeros(fan_out)))
    return layers


def apply(layers, x):
    h = x.reshape(x.shape[0], -1)
    for i, (w, b) in enumerate(layers):
        h = h @ w + b
        if i < len(layers) - 1:
            h = jnp.tanh(h)
    return jax.nn.sigmoid(h).reshape(x.shape)


def add_noise(key, clean, std):
    noise_keys = jax.random.split(key, clean.shape[0])
    noise = jax.random.normal(noise_keys, shape=clean.shape)
    return jnp.clip(clean + std * noise, 0.0, 1.0)


def loss_fn(layers, noisy, clean, wd):
    recon = apply(layers, noisy)
    l2 = sum(jnp.sum(w ** 2) for w, _ in layers)
    return jnp.mean((recon - clean) ** 2) + wd * l2


def make_step(hp):
    @jax.jit
    def step(layers, key, clean):
        noisy = add_noise(key, clean, hp["noise_std"])
        loss, grads = jax.value_and_grad(loss_fn)(layers, noisy, clean, hp["weight_decay"])
        layers = jax.tree_util.tree_map(lambda p, g: p - hp["lr"] * g, layers, grads)
        psnr = -10.0 * jnp.log10(jnp.mean((apply(layers, noisy) - clean) ** 2))
        return layers, loss, psnr
    return step


def run(hp):
    np_rng = np.random.RandomState(hp["seed"])
    data = render_blobs(hp["n_images"], hp["img"], np_rng)
    print("data", data.shape, "mean intensity", round(float(data.mean()), 4))
    key = jax.random.PRNGKey(hp["seed"])
    key, init_key = jax.random.split(key)
    layers = jax.jit(lambda k: init(k, hp))(init_key)
    step = make_step(hp)
    for epoch in range(hp["epochs"]):
        meter, t0 = Meter(), time.time()
        order = np_rng.permutation(len(data))
        for i in range(0, len(data), hp["batch"]):
            clean = augment(data[order[i:i + hp["batch"]]], np_rng)
            key, sub = jax.random.split(key)
            layers, loss, psnr = step(layers, sub, jnp.asarray(clean))
            meter.update(loss=loss, psnr=psnr)
        stats = meter.summary()
        print(f"epoch {epoch}: loss={stats['loss']:.5f} psnr={stats['psnr']:.2f}dB "
              f"({time.time() - t0:.2f}s)")
    return layers


if __name__ == "__main__":
    run(HPARAMS)
