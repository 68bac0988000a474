"""Contrastive-learning memory bank (MoCo-style queue) with a small projection head and an InfoNCE score.

Modelled on https://github.com/jax-ml/jax/issues/1380 (an indexed update
`x.at[i].set(y)` whose update value has the wrong shape): the projection head
emits 24-dim embeddings but the queue was allocated with the backbone width.
"""
import jax
import jax.numpy as jnp
import numpy as np

SETUP = {
    "input_dim": 20,
    "backbone_dim": 32,
    "proj_dim": 24,
    "queue_size": 64,
    "batch": 8,
    "temperature": 0.2,
    "momentum": 0.99,
    "seed": 5,
}


def dense_init(rng, n_in, n_out):
    return jnp.asarray(rng.standard_normal((n_in, n_out)) / np.sqrt(n_in), dtype=jnp.float32)


def init_encoder(cfg):
    rng = np.random.default_rng(cfg["seed"])
    return {
        "backbone": dense_init(rng, cfg["input_dim"], cfg["backbone_dim"]),
        "proj": dense_init(rng, cfg["backbone_dim"], cfg["proj_dim"]),
    }


def encode(params, x):
    h = jax.nn.relu(x @ params["backbone"])
    z = h @ params["proj"]
    return z / jnp.linalg.norm(z, axis=-1, keepdims=True)


def augment(key, x):
    k1, k2 = jax.random.split(key)
    noise = 0.1 * jax.random.normal(k1, x.shape)
    mask = jax.random.bernoulli(k2, 0.9, x.shape)
    return (x + noise) * mask


def momentum_update(online, target, m):
    return jax.tree.map(lambda o, t: m * t + (1.0 - m) * o, online, target)


@jax.jit
def enqueue(queue, ptr, keys):
    def put(i, q):
        return q.at[(ptr + i) % q.shape[0]].set(keys[i])
    queue = jax.lax.fori_loop(0, keys.shape[0], put, queue)
    return queue, (ptr + keys.shape[0]) % queue.shape[0]


def info_nce(q, k, queue, temperature):
    pos = jnp.sum(q * k, axis=-1, keepdims=True)
    neg = q @ queue.T
    logits = jnp.concatenate([pos, neg], axis=1) / temperature
    return -jnp.mean(jax.nn.log_softmax(logits)[:, 0])


def main():
    cfg = SETUP
    online = init_encoder(cfg)
    target = jax.tree.map(jnp.copy, online)
    queue = jnp.zeros((cfg["queue_size"], cfg["backbone_dim"]))
    ptr = jnp.int32(0)
    data = jnp.asarray(np.random.default_rng(0).standard_normal((4 * cfg["batch"], cfg["input_dim"])), jnp.float32)
    key = jax.random.PRNGKey(cfg["seed"])
    print(f"[setup] queue={queue.shape} data={data.shape}")
    for step in range(4):
        key, ka, kb = jax.random.split(key, 3)
        x = data[step * cfg["batch"]:(step + 1) * cfg["batch"]]
        q = encode(online, augment(ka, x))
        k = encode(target, augment(kb, x))
        print(f"[step {step}] q={q.shape} k={k.shape}")
        queue, ptr = enqueue(queue, ptr, k)
        loss = info_nce(q, k, queue, cfg["temperature"])
        target = momentum_update(online, target, cfg["momentum"])
        print(f"[step {step}] loss={float(loss):.4f} ptr={int(ptr)}")


if __name__ == "__main__":
    main()
