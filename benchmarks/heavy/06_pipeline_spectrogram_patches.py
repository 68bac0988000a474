"""Long audio-feature pipeline (numpy + jax) feeding a patch-based classifier written in plain JAX.

Stages: synthesise chirp/tone clips, DC removal and pre-emphasis, FFT band-pass, framing with a
Hann window, power spectrum, mel filterbank, log compression, delta features, per-clip
standardisation, then (in jax) patchify the feature map and run a small MLP over the patches.
The patchify step assumes the number of frames is a multiple of the patch length, which it is not
for this clip length and hop, and the reshape fails.

Modelled on https://github.com/spinsphotonics/pjz/issues/14 (a jnp.reshape into tiles that only works
when the array sizes are multiples of the tile size: "cannot reshape array of shape ... into shape ...").
"""
import numpy as np
import jax
import jax.numpy as jnp

SR = 8000
CLIP_SEC = 2.0
N_FFT = 256
HOP = 96
N_MELS = 32
PATCH = 8
N_CLASSES = 3
SEED = 6


def synth_clips(n, rng):
    t = np.arange(int(SR * CLIP_SEC)) / SR
    labels = rng.integers(0, N_CLASSES, size=n)
    clips = []
    for c in labels:
        f0 = rng.uniform(200, 800)
        if c == 0:
            x = np.sin(2 * np.pi * f0 * t)
        elif c == 1:
            x = np.sin(2 * np.pi * (f0 + 1500 * t) * t)
        else:
            x = np.sign(np.sin(2 * np.pi * f0 * t)) * np.exp(-3 * t)
        clips.append(x + 0.3 * rng.normal(size=t.shape) + 0.2)
    return np.stack(clips).astype(np.float32), labels


def remove_dc(x):
    return x - x.mean(axis=1, keepdims=True)


def pre_emphasis(x, a=0.97):
    return np.concatenate([x[:, :1], x[:, 1:] - a * x[:, :-1]], axis=1)


def bandpass(x, lo=80.0, hi=3500.0):
    spec = np.fft.rfft(x, axis=1)
    freqs = np.fft.rfftfreq(x.shape[1], 1 / SR)
    spec[:, (freqs < lo) | (freqs > hi)] = 0
    return np.fft.irfft(spec, n=x.shape[1], axis=1).astype(np.float32)


def frame(x):
    n_frames = 1 + (x.shape[1] - N_FFT) // HOP
    idx = np.arange(N_FFT)[None, :] + HOP * np.arange(n_frames)[:, None]
    return x[:, idx] * np.hanning(N_FFT).astype(np.float32)


def power_spectrum(frames):
    return (np.abs(np.fft.rfft(frames, axis=-1)) ** 2 / N_FFT).astype(np.float32)


def mel_filterbank():
    def hz_to_mel(f): return 2595 * np.log10(1 + f / 700)
    def mel_to_hz(m): return 700 * (10 ** (m / 2595) - 1)
    mels = np.linspace(hz_to_mel(0), hz_to_mel(SR / 2), N_MELS + 2)
    bins = np.floor((N_FFT + 1) * mel_to_hz(mels) / SR).astype(int)
    fb = np.zeros((N_MELS, N_FFT // 2 + 1), dtype=np.float32)
    for m in range(1, N_MELS + 1):
        l, c, r = bins[m - 1], bins[m], bins[m + 1]
        fb[m - 1, l:c] = (np.arange(l, c) - l) / max(c - l, 1)
        fb[m - 1, c:r] = (r - np.arange(c, r)) / max(r - c, 1)
    return fb


def deltas(feat):
    padded = np.pad(feat, ((0, 0), (1, 1), (0, 0)), mode="edge")
    return (padded[:, 2:] - padded[:, :-2]) / 2


def standardise(feat):
    mu = feat.mean(axis=(1, 2), keepdims=True)
    sd = feat.std(axis=(1, 2), keepdims=True) + 1e-5
    return (feat - mu) / sd


def preprocess(clips):
    x = bandpass(pre_emphasis(remove_dc(clips)))
    mel = np.einsum("bft,mt->bfm", power_spectrum(frame(x)), mel_filterbank())
    logmel = np.log(mel + 1e-6)
    return standardise(np.concatenate([logmel, deltas(logmel)], axis=-1))


@jax.jit
def spec_augment(key, feats):
    """Random time and frequency masking (jax), one mask of each kind per clip."""
    b, t, f = feats.shape
    kt, kf, kt0, kf0 = jax.random.split(key, 4)
    tw = jax.random.randint(kt, (b, 1, 1), 0, t // 8)
    fw = jax.random.randint(kf, (b, 1, 1), 0, f // 8)
    t0 = jax.random.randint(kt0, (b, 1, 1), 0, t - t // 8)
    f0 = jax.random.randint(kf0, (b, 1, 1), 0, f - f // 8)
    ti = jnp.arange(t)[None, :, None]
    fi = jnp.arange(f)[None, None, :]
    mask = ((ti >= t0) & (ti < t0 + tw)) | ((fi >= f0) & (fi < f0 + fw))
    return jnp.where(mask, 0.0, feats)


def init_params(key, d_in, hidden=64):
    k1, k2, k3 = jax.random.split(key, 3)
    return {"w1": jax.random.normal(k1, (d_in, hidden)) / np.sqrt(d_in),
            "w2": jax.random.normal(k2, (hidden, hidden)) / np.sqrt(hidden),
            "w3": jax.random.normal(k3, (hidden, N_CLASSES)) / np.sqrt(hidden)}


@jax.jit
def classify(params, feats):
    b, n_frames, n_feat = feats.shape
    patches = jnp.reshape(feats, (b, n_frames // PATCH, PATCH * n_feat))
    h = jax.nn.gelu(patches @ params["w1"])
    h = jax.nn.gelu(h @ params["w2"]).mean(axis=1)
    return h @ params["w3"]


def main():
    rng = np.random.default_rng(SEED)
    clips, labels = synth_clips(640, rng)
    feats = preprocess(clips)
    print("features:", feats.shape, "finite:", bool(np.isfinite(feats).all()))
    key = jax.random.PRNGKey(SEED)
    key, aug_key, init_key = jax.random.split(key, 3)
    feats = spec_augment(aug_key, jnp.asarray(feats))
    params = init_params(init_key, PATCH * feats.shape[-1])
    logits = classify(params, feats)
    print("accuracy (untrained):", float(jnp.mean(jnp.argmax(logits, -1) == labels)))


if __name__ == "__main__":
    main()
