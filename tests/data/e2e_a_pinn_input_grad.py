# Physics-informed MLP for the 1-D boundary value problem
#     u''(x) = -pi^2 sin(pi x),  u(0) = u(1) = 0   (exact: u = sin(pi x))
# trained with a PDE-residual loss on collocation points plus a boundary loss,
# using plain jax + numpy (hand-written Adam, numpy sampling of points).
#
# Bug: PINN network returns shape (1,) per point and jax.grad is applied to it directly for du/dx -> "Gradient only defined for scalar-output functions"
# Based on: https://github.com/patrick-kidger/equinox/issues/213
# (jax.grad of an MLP with out_size=1: "Output had shape: (1,).")
import math

import jax
import jax.numpy as jnp
import numpy as np

PINN = {
    "layers": [1, 32, 32, 1],
    "n_colloc": 64,
    "bc_weight": 10.0,
    "steps": 5,
    "lr": 5e-3,
    "betas": (0.9, 0.999),
    "seed": 0,
}


def source(x):
    return -(math.pi ** 2) * jnp.sin(math.pi * x)


def exact(x):
    return np.sin(np.pi * x)


def init_params(rng, layers):
    params = []
    for n_in, n_out in zip(layers[:-1], layers[1:]):
        lim = math.sqrt(6.0 / (n_in + n_out))  # Glorot uniform
        w = rng.uniform(-lim, lim, size=(n_in, n_out)).astype(np.float32)
        params.append({"w": jnp.asarray(w), "b": jnp.zeros(n_out)})
    return params


def u_net(params, x):
    """Network value at a single scalar point x."""
    h = jnp.reshape(x, (1,))
    for layer in params[:-1]:
        h = jnp.tanh(h @ layer["w"] + layer["b"])
    return h @ params[-1]["w"] + params[-1]["b"]


def u_xx(params, x):
    du = jax.grad(u_net, argnums=1)
    d2u = jax.grad(lambda z: du(params, z))
    return d2u(x)


def residual_loss(params, xs):
    res = jax.vmap(lambda x: u_xx(params, x) - source(x))(xs)
    return jnp.mean(res ** 2)


def boundary_loss(params):
    xb = jnp.array([0.0, 1.0])
    ub = jax.vmap(lambda x: u_net(params, x))(xb)
    return jnp.mean(ub ** 2)


def total_loss(params, xs):
    r = residual_loss(params, xs)
    b = boundary_loss(params)
    return r + PINN["bc_weight"] * b, (r, b)


def adam_init(params):
    z = jax.tree_util.tree_map(jnp.zeros_like, params)
    return (z, z, 0)


@jax.jit
def update(params, opt, xs):
    m, v, t = opt
    (loss, (r, b)), g = jax.value_and_grad(total_loss, has_aux=True)(params, xs)
    b1, b2 = PINN["betas"]
    t = t + 1
    m = jax.tree_util.tree_map(lambda a, c: b1 * a + (1 - b1) * c, m, g)
    v = jax.tree_util.tree_map(lambda a, c: b2 * a + (1 - b2) * c * c, v, g)
    lr_t = PINN["lr"] * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    params = jax.tree_util.tree_map(lambda p, a, c: p - lr_t * a / (jnp.sqrt(c) + 1e-8),
                                    params, m, v)
    return params, (m, v, t), {"loss": loss, "residual": r, "boundary": b}


def l2_error(params, n=101):
    xs = np.linspace(0, 1, n, dtype=np.float32)
    pred = np.asarray(jax.vmap(lambda x: u_net(params, x))(jnp.asarray(xs)))[:, 0]
    return float(np.sqrt(np.mean((pred - exact(xs)) ** 2)))


def main():
    rng = np.random.default_rng(PINN["seed"])
    params = init_params(rng, PINN["layers"])
    opt = adam_init(params)
    print(f"initial L2 error: {l2_error(params):.4f}")
    for step in range(PINN["steps"]):
        xs = jnp.asarray(rng.uniform(0, 1, PINN["n_colloc"]).astype(np.float32))
        params, opt, stats = update(params, opt, xs)
        print(f"step {step}: " + ", ".join(f"{k}={float(v):.4e}" for k, v in stats.items()))
    print(f"final L2 error: {l2_error(params):.4f}")


if __name__ == "__main__":
    main()
