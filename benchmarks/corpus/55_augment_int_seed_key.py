# Bug: the augmentation pipeline passes the integer seed from the config where a PRNG key is expected
# (jax.random.normal(cfg["seed"], ...)) instead of a key made with jax.random.PRNGKey
"""Audio-like 1-D signal augmentation pipeline (gain, noise, time shift) feeding a tiny spectral classifier."""
import os
import tempfile
import wave

import jax
import jax.numpy as jnp
import numpy as np

PIPE = {
    "sample_rate": 800,
    "duration": 0.5,
    "noise_std": 0.05,
    "gain_range": (0.7, 1.3),
    "max_shift": 40,
    "seed": 123,
    "n_clips": 6,
}


def synth_clip(freq, sr, duration):
    t = np.arange(int(sr * duration)) / sr
    return 0.6 * np.sin(2 * np.pi * freq * t)


def write_wav(path, signal, sr):
    pcm = np.clip(signal * 32767, -32768, 32767).astype(np.int16)
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sr)
        w.writeframes(pcm.tobytes())


def read_wav(path):
    with wave.open(path, "rb") as w:
        frames = w.readframes(w.getnframes())
        sr = w.getframerate()
    return np.frombuffer(frames, dtype=np.int16).astype(np.float32) / 32767.0, sr


class Augmenter:
    def __init__(self, cfg):
        self.cfg = cfg

    def gain(self, key, x):
        lo, hi = self.cfg["gain_range"]
        return x * jax.random.uniform(key, (x.shape[0], 1), minval=lo, maxval=hi)

    def noise(self, key, x):
        return x + self.cfg["noise_std"] * jax.random.normal(key, x.shape)

    def shift(self, key, x):
        shifts = jax.random.randint(key, (x.shape[0],), -self.cfg["max_shift"], self.cfg["max_shift"])
        return jax.vmap(lambda row, s: jnp.roll(row, s))(x, shifts)

    def __call__(self, key, batch):
        k_gain, k_noise, k_shift = jax.random.split(key, 3)
        return self.shift(k_shift, self.noise(k_noise, self.gain(k_gain, batch)))


def spectral_features(batch, n_bins=16):
    spec = jnp.abs(jnp.fft.rfft(batch, axis=-1))
    bins = jnp.array_split(spec, n_bins, axis=-1)
    return jnp.log1p(jnp.stack([b.mean(-1) for b in bins], -1))


def main():
    cfg = PIPE
    freqs = np.linspace(50, 300, cfg["n_clips"])
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, f in enumerate(freqs):
            p = os.path.join(tmp, f"clip_{i}.wav")
            write_wav(p, synth_clip(f, cfg["sample_rate"], cfg["duration"]), cfg["sample_rate"])
            paths.append(p)
        clips = [read_wav(p)[0] for p in paths]
    batch = jnp.asarray(np.stack(clips))
    print(f"loaded {batch.shape[0]} clips of {batch.shape[1]} samples")
    aug = Augmenter(cfg)
    noisy = aug.noise(cfg["seed"], batch)
    augmented = aug(jax.random.PRNGKey(cfg["seed"] + 1), noisy)
    feats = spectral_features(augmented)
    peak = np.asarray(jnp.argmax(feats, -1))
    for f, b in zip(freqs, peak):
        print(f"{f:6.1f} Hz -> strongest bin {b}")


if __name__ == "__main__":
    main()
