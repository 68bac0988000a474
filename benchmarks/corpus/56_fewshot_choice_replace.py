# Bug: episodes sample k support examples per class with replace=False, but the config asks for 8 shots and
# the rarest class in the loaded split has only 5 examples
"""Prototypical-network few-shot evaluation on a synthetic dataset stored as class folders of .npy files."""
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

EPISODE = {"ways": 3, "shots": 8, "queries": 2, "dim": 10, "embed": 8, "episodes": 5, "seed": 31}
CLASS_SIZES = {"circle": 20, "square": 12, "triangle": 5, "star": 16}


def write_class_folders(root, sizes, dim, seed):
    rng = np.random.default_rng(seed)
    for c, (name, n) in enumerate(sorted(sizes.items())):
        folder = os.path.join(root, name)
        os.makedirs(folder)
        center = rng.normal(size=dim) * 2
        for i in range(n):
            np.save(os.path.join(folder, f"{i:03d}.npy"), (center + rng.normal(size=dim)).astype(np.float32))


def load_class_folders(root):
    classes = {}
    for name in sorted(os.listdir(root)):
        files = sorted(os.listdir(os.path.join(root, name)))
        classes[name] = np.stack([np.load(os.path.join(root, name, f)) for f in files])
    return classes


def init_encoder(key, cfg):
    k1, k2 = jax.random.split(key)
    return {"w1": jax.random.normal(k1, (cfg["dim"], 32)) / np.sqrt(cfg["dim"]),
            "w2": jax.random.normal(k2, (32, cfg["embed"])) / np.sqrt(32)}


def encode(params, x):
    return jnp.tanh(x @ params["w1"]) @ params["w2"]


def sample_episode(key, pools, cfg):
    k_cls, k_ex = jax.random.split(key)
    names = sorted(pools)
    chosen = jax.random.choice(k_cls, len(names), (cfg["ways"],), replace=False)
    support, query = [], []
    for k, c in zip(jax.random.split(k_ex, cfg["ways"]), np.asarray(chosen)):
        pool = pools[names[c]]
        idx = jax.random.choice(k, len(pool), (cfg["shots"] + cfg["queries"],), replace=False)
        ex = pool[np.asarray(idx)]
        support.append(ex[: cfg["shots"]])
        query.append(ex[cfg["shots"]:])
    return jnp.asarray(np.stack(support)), jnp.asarray(np.stack(query))


@jax.jit
def episode_accuracy(params, support, query):
    protos = encode(params, support).mean(axis=1)
    q = encode(params, query)
    dists = jnp.sum((q[:, :, None, :] - protos[None, None]) ** 2, -1)
    pred = jnp.argmin(dists, -1)
    return jnp.mean(pred == jnp.arange(q.shape[0])[:, None])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        write_class_folders(tmp, CLASS_SIZES, EPISODE["dim"], EPISODE["seed"])
        pools = load_class_folders(tmp)
    print({k: len(v) for k, v in pools.items()})
    params = init_encoder(jax.random.PRNGKey(0), EPISODE)
    key = jax.random.PRNGKey(EPISODE["seed"])
    accs = []
    for e in range(EPISODE["episodes"]):
        key, sub = jax.random.split(key)
        support, query = sample_episode(sub, pools, EPISODE)
        accs.append(float(episode_accuracy(params, support, query)))
        print(f"episode {e}: acc {accs[-1]:.3f}")
    print(f"mean accuracy {np.mean(accs):.3f} +- {np.std(accs):.3f}")


if __name__ == "__main__":
    main()
