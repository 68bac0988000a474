"""Image augmentation pipeline (random crops, flips, brightness jitter) with per-worker PRNG streams.

Modelled on https://github.com/jax-ml/jax/pull/16028 ("custom PRNG: better error
when using key as seed"): the root key was migrated to a new-style typed key
(`jax.random.key`), but a legacy helper still passes it to `jax.random.PRNGKey`
as if it were an integer seed.
"""
import jax
import jax.numpy as jnp
import numpy as np

AUG = {"image": 24, "crop": 20, "channels": 3, "batch": 6, "workers": 2,
       "brightness": 0.2, "flip_prob": 0.5, "seed": 1234}


def root_key(cfg):
    # new-style typed key (JEP 9263)
    return jax.random.key(cfg["seed"])


def worker_key(seed, worker_id):
    """Legacy helper from the old data loader: seed -> per-worker key."""
    key = jax.random.PRNGKey(seed)
    return jax.random.fold_in(key, worker_id)


def random_crop(key, img, size):
    h, w, _ = img.shape
    ky, kx = jax.random.split(key)
    y0 = jax.random.randint(ky, (), 0, h - size + 1)
    x0 = jax.random.randint(kx, (), 0, w - size + 1)
    return jax.lax.dynamic_slice(img, (y0, x0, 0), (size, size, img.shape[2]))


def random_flip(key, img, p):
    return jnp.where(jax.random.bernoulli(key, p), img[:, ::-1, :], img)


def brightness(key, img, delta):
    return jnp.clip(img + jax.random.uniform(key, (), minval=-delta, maxval=delta), 0.0, 1.0)


def augment_one(key, img, cfg):
    k1, k2, k3 = jax.random.split(key, 3)
    img = random_crop(k1, img, cfg["crop"])
    img = random_flip(k2, img, cfg["flip_prob"])
    return brightness(k3, img, cfg["brightness"])


def augment_batch(key, images, cfg):
    keys = jax.random.split(key, images.shape[0])
    return jax.vmap(lambda k, im: augment_one(k, im, cfg))(keys, images)


def load_images(cfg):
    rng = np.random.default_rng(0)
    shape = (cfg["workers"] * cfg["batch"], cfg["image"], cfg["image"], cfg["channels"])
    return jnp.asarray(rng.uniform(size=shape), jnp.float32)


def main():
    cfg = AUG
    images = load_images(cfg)
    key = root_key(cfg)
    print(f"[loader] {images.shape[0]} images, root key dtype={key.dtype}")
    for w in range(cfg["workers"]):
        wkey = worker_key(key, w)
        shard = images[w * cfg["batch"]:(w + 1) * cfg["batch"]]
        out = augment_batch(wkey, shard, cfg)
        print(f"[worker {w}] augmented {out.shape} mean={float(out.mean()):.4f}")


if __name__ == "__main__":
    main()
