"""Flax linen multi-task MLP trained with optax, then extended with a new task head mid-training.

Stage 1 trains a shared trunk and a "price" regression head. Stage 2 adds a "churn" head by
initialising a second model and grafting its new head into the trained parameter dict, but keeps
the optimizer state that was created for the old parameter tree. The first optax update then maps
over two pytrees whose dicts have different keys and fails.

Modelled on https://github.com/erfanzar/EasyDeL/issues/154 (training resumed with a parameter tree
whose layer names no longer match the optimizer/state tree: a pytree dict key mismatch).
"""
import functools

import numpy as np
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax

SEED = 7
N_FEATURES = 20


class Trunk(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(64)(x))
        x = nn.LayerNorm()(x)
        return nn.relu(nn.Dense(32)(x))


class MultiTask(nn.Module):
    tasks: tuple

    @nn.compact
    def __call__(self, x):
        h = Trunk(name="trunk")(x)
        return {t: nn.Dense(1, name=f"head_{t}")(h)[:, 0] for t in self.tasks}


def make_data(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, N_FEATURES)).astype(np.float32)
    price = x[:, :5].sum(1) + 0.5 * np.sin(x[:, 5] * 2) + 0.1 * rng.normal(size=n)
    churn = (x[:, 6] - x[:, 7] + 0.3 * rng.normal(size=n) > 0).astype(np.float32)
    return x, {"price": price.astype(np.float32), "churn": churn}


def task_loss(task, pred, target):
    if task == "churn":
        return optax.sigmoid_binary_cross_entropy(pred, target).mean()
    return jnp.mean((pred - target) ** 2)


@functools.partial(jax.jit, static_argnums=(0, 1))
def train_step(model, tx, params, opt_state, x, targets):
    def loss_fn(p):
        preds = model.apply({"params": p}, x)
        return sum(task_loss(t, preds[t], targets[t]) for t in model.tasks)
    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


def run_epochs(model, tx, params, opt_state, x, y, epochs, rng, batch=128):
    for epoch in range(epochs):
        perm = rng.permutation(len(x))
        for i in range(0, len(x) - batch + 1, batch):
            j = perm[i:i + batch]
            targets = {t: jnp.asarray(y[t][j]) for t in model.tasks}
            params, opt_state, loss = train_step(model, tx, params, opt_state, jnp.asarray(x[j]), targets)
        print(f"  {model.tasks} epoch {epoch}: loss {float(loss):.4f}")
    return params, opt_state


def main():
    x, y = make_data(4096, SEED)
    rng = np.random.default_rng(SEED)
    key = jax.random.PRNGKey(SEED)
    k1, k2 = jax.random.split(key)

    schedule = optax.cosine_decay_schedule(3e-3, decay_steps=400)
    tx = optax.chain(optax.clip_by_global_norm(1.0),
                     optax.adamw(schedule, weight_decay=1e-4),
                     optax.ema(0.99, debias=True))

    model1 = MultiTask(tasks=("price",))
    params = jax.jit(model1.init)(k1, jnp.zeros((1, N_FEATURES)))["params"]
    opt_state = tx.init(params)
    print("stage 1: price head")
    params, opt_state = run_epochs(model1, tx, params, opt_state, x, y, 2, rng)

    # stage 2: graft a freshly initialised churn head onto the trained trunk
    model2 = MultiTask(tasks=("price", "churn"))
    fresh = jax.jit(model2.init)(k2, jnp.zeros((1, N_FEATURES)))["params"]
    params = dict(params)
    params["head_churn"] = fresh["head_churn"]
    n_params = sum(p.size for p in jax.tree_util.tree_leaves(params))
    print(f"stage 2: price + churn heads, {n_params} parameters")
    params, opt_state = run_epochs(model2, tx, params, opt_state, x, y, 2, rng)


if __name__ == "__main__":
    main()
