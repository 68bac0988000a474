# 1-D CNN for classifying synthetic sine/square/sawtooth waveforms, with numpy
# data augmentation (random shift, amplitude jitter, gaussian noise) and a
# piecewise-constant learning-rate schedule. Plain jax + numpy, no flax/optax.
#
# Bug: traced step counter used to index a Python list (LR schedule) inside a jitted train step -> TracerIntegerConversionError
# Based on: https://github.com/jax-ml/jax/pull/5853
# (tracer used as a Python list index under jit; see also
#  https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerIntegerConversionError)
import collections
import functools

import jax
import jax.numpy as jnp
import numpy as np

HPARAMS = dict(
    seq_len=64,
    n_classes=3,
    channels=(16, 32),
    kernel=5,
    batch=12,
    steps=8,
    lr_boundaries=(4, 6),
    lr_values=[0.1, 0.03, 0.01],
    weight_decay=1e-4,
    seed=42,
)


class Meter:
    def __init__(self):
        self.sums = collections.defaultdict(float)
        self.counts = collections.defaultdict(int)

    def update(self, **kw):
        for k, v in kw.items():
            self.sums[k] += float(v)
            self.counts[k] += 1

    def summary(self):
        return {k: self.sums[k] / max(self.counts[k], 1) for k in self.sums}


def synth_waveforms(n, seq_len, rng):
    t = np.linspace(0, 4 * np.pi, seq_len, dtype=np.float32)
    labels = rng.integers(0, 3, size=n)
    freq = rng.uniform(0.5, 2.0, size=(n, 1)).astype(np.float32)
    phase = t[None, :] * freq
    sine = np.sin(phase)
    square = np.sign(np.sin(phase))
    saw = 2.0 * (phase / (2 * np.pi) - np.floor(0.5 + phase / (2 * np.pi)))
    waves = np.choose(labels[:, None], [sine, square, saw]).astype(np.float32)
    return waves, labels.astype(np.int32)


def augment(x, rng):
    shifts = rng.integers(-8, 8, size=len(x))
    x = np.stack([np.roll(row, s) for row, s in zip(x, shifts)])
    x = x * rng.uniform(0.8, 1.2, size=(len(x), 1))
    x = x + 0.05 * rng.normal(size=x.shape)
    return x.astype(np.float32)[..., None]  # (N, L, 1)


def conv_init(key, k, c_in, c_out):
    std = np.sqrt(2.0 / (k * c_in))
    return {"w": std * jax.random.normal(key, (k, c_in, c_out)), "b": jnp.zeros(c_out)}


def init_params(key, hp):
    keys = jax.random.split(key, len(hp["channels"]) + 1)
    params, c_in = {"convs": []}, 1
    for k, c_out in zip(keys[:-1], hp["channels"]):
        params["convs"].append(conv_init(k, hp["kernel"], c_in, c_out))
        c_in = c_out
    params["head"] = {"w": 0.1 * jax.random.normal(keys[-1], (c_in, hp["n_classes"])),
                      "b": jnp.zeros(hp["n_classes"])}
    return params


def conv1d(x, w, b):
    y = jax.lax.conv_general_dilated(x, w, window_strides=(1,), padding="SAME",
                                     dimension_numbers=("NWC", "WIO", "NWC"))
    return y + b


def forward(params, x):
    for layer in params["convs"]:
        x = jax.nn.relu(conv1d(x, layer["w"], layer["b"]))
        x = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 1), (1, 2, 1), "VALID")
    x = jnp.mean(x, axis=1)
    return x @ params["head"]["w"] + params["head"]["b"]


def loss_fn(params, x, y, wd):
    logits = forward(params, x)
    nll = -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1))
    l2 = sum(jnp.sum(p ** 2) for p in jax.tree_util.tree_leaves(params))
    return nll + wd * l2, logits


def learning_rate(step, hp):
    stage = jnp.sum(step >= jnp.asarray(hp["lr_boundaries"]))
    return hp["lr_values"][stage]


@functools.partial(jax.jit, static_argnames=("wd",))
def train_step(params, step, x, y, wd):
    (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y, wd)
    lr = learning_rate(step, HPARAMS)
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    acc = jnp.mean(jnp.argmax(logits, -1) == y)
    return params, loss, acc, lr


def main(hp=HPARAMS):
    rng = np.random.default_rng(hp["seed"])
    x_all, y_all = synth_waveforms(hp["batch"] * hp["steps"], hp["seq_len"], rng)
    params = init_params(jax.random.PRNGKey(hp["seed"]), hp)
    n_params = sum(p.size for p in jax.tree_util.tree_leaves(params))
    print(f"model has {n_params} parameters")
    meter = Meter()
    for step in range(hp["steps"]):
        sl = slice(step * hp["batch"], (step + 1) * hp["batch"])
        xb, yb = augment(x_all[sl], rng), y_all[sl]
        params, loss, acc, lr = train_step(params, jnp.int32(step), xb, yb,
                                           hp["weight_decay"])
        meter.update(loss=loss, acc=acc)
        print(f"step {step:02d} lr={float(lr):.3f} loss={float(loss):.4f} acc={float(acc):.3f}")
    print("summary:", meter.summary())


if __name__ == "__main__":
    main()
