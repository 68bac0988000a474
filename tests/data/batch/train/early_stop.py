# A jitted training step that tries to stop early with a Python `if` on the traced loss.
import jax
import jax.numpy as jnp

LR, TOL = 0.1, 1e-3


def loss_fn(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def step(w, x, y):
    loss, grad = jax.value_and_grad(loss_fn)(w, x, y)
    if loss < TOL:
        return w, loss
    return w - LR * grad, loss


x = jnp.linspace(-1.0, 1.0, 96).reshape(32, 3)
y = x @ jnp.array([1.0, -2.0, 0.5])
w = jnp.zeros(3)
history = []
for epoch in range(5):
    w, loss = step(w, x, y)
    history.append(float(loss))
print(history)
