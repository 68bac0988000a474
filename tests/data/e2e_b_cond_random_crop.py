# Small 2-D CNN classifying synthetic "blob vs. ring" images. Augmentation
# (random flip + random crop-and-pad) is done on-device inside the jitted
# train step with jax.random and lax.cond; optimizer is SGD with Nesterov
# momentum and weight decay. Pure jax + numpy.
#
# Bug: lax.cond random-crop branch returns (B, 12, 12, 1) while the identity branch returns (B, 16, 16, 1) -> "cond branches must have equal output types"
# Based on: https://github.com/keras-team/keras/issues/19379
# (keras.ops.cond on the JAX backend fails when one branch returns a cropped
#  tensor and the other returns the input unchanged)
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

CONF = {
    "img": 16, "crop": 12, "n_train": 96, "batch": 8, "steps": 4,
    "channels": (8, 16), "n_classes": 2, "lr": 0.05, "momentum": 0.9,
    "wd": 5e-4, "p_crop": 0.5, "seed": 21,
}


def synth_images(n, size, rng):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    labels = rng.integers(0, 2, size=n)
    out = np.zeros((n, size, size, 1), np.float32)
    for i, lab in enumerate(labels):
        cy, cx = rng.uniform(size * 0.3, size * 0.7, size=2)
        r = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
        radius = rng.uniform(2.5, 4.5)
        img = np.exp(-(r / radius) ** 2) if lab == 0 else np.exp(-((r - radius) / 1.0) ** 2)
        out[i, ..., 0] = img + 0.05 * rng.normal(size=img.shape)
    return out, labels.astype(np.int32)


def he_init(rng, shape, fan_in):
    return jnp.asarray(rng.normal(size=shape) * np.sqrt(2.0 / fan_in), jnp.float32)


def init_params(rng, conf):
    params, c_in = {"conv": []}, 1
    for c_out in conf["channels"]:
        params["conv"].append({"w": he_init(rng, (3, 3, c_in, c_out), 9 * c_in),
                               "b": jnp.zeros(c_out)})
        c_in = c_out
    params["fc"] = {"w": he_init(rng, (c_in, conf["n_classes"]), c_in),
                    "b": jnp.zeros(conf["n_classes"])}
    return params


def conv2d(x, w, b):
    y = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return y + b


def cnn(params, x):
    for layer in params["conv"]:
        x = jax.nn.relu(conv2d(x, layer["w"], layer["b"]))
        x = lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
    x = x.mean(axis=(1, 2))
    return x @ params["fc"]["w"] + params["fc"]["b"]


def augment(key, images, conf):
    k_flip, k_crop, k_off = jax.random.split(key, 3)
    flip = jax.random.bernoulli(k_flip, 0.5, (images.shape[0], 1, 1, 1))
    images = jnp.where(flip, images[:, :, ::-1], images)
    off = jax.random.randint(k_off, (2,), 0, conf["img"] - conf["crop"] + 1)

    def crop(ims):
        return lax.dynamic_slice(ims, (0, off[0], off[1], 0),
                                 (ims.shape[0], conf["crop"], conf["crop"], 1))

    do_crop = jax.random.bernoulli(k_crop, conf["p_crop"])
    return lax.cond(do_crop, crop, lambda ims: ims, images)


def loss_fn(params, images, labels, conf):
    logits = cnn(params, images)
    nll = -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], 1))
    decay = sum(jnp.sum(l["w"] ** 2) for l in params["conv"]) + jnp.sum(params["fc"]["w"] ** 2)
    return nll + conf["wd"] * decay


@functools.partial(jax.jit, static_argnums=4)
def train_step(params, mom, key, batch, conf_items):
    conf = dict(conf_items)
    images = augment(key, batch["x"], conf)
    loss, g = jax.value_and_grad(loss_fn)(params, images, batch["y"], conf)
    mom = jax.tree_util.tree_map(lambda m, gi: conf["momentum"] * m + gi, mom, g)
    step = jax.tree_util.tree_map(lambda m, gi: gi + conf["momentum"] * m, mom, g)
    params = jax.tree_util.tree_map(lambda p, s: p - conf["lr"] * s, params, step)
    return params, mom, loss


def main(conf=CONF):
    rng = np.random.default_rng(conf["seed"])
    x, y = synth_images(conf["n_train"], conf["img"], rng)
    params = init_params(rng, conf)
    mom = jax.tree_util.tree_map(jnp.zeros_like, params)
    key = jax.random.PRNGKey(conf["seed"])
    conf_items = tuple(sorted(conf.items(), key=lambda kv: kv[0]))
    for step in range(conf["steps"]):
        key, sub = jax.random.split(key)
        idx = rng.choice(len(x), conf["batch"], replace=False)
        params, mom, loss = train_step(params, mom, sub, {"x": x[idx], "y": y[idx]}, conf_items)
        print(f"step {step}: loss {float(loss):.4f}")
    acc = float(jnp.mean(cnn(params, jnp.asarray(x)).argmax(-1) == y))
    print(f"train accuracy: {acc:.3f}")


if __name__ == "__main__":
    main()
