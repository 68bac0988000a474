# Multi-head self-attention whose output projection expects the per-head width, not the model width.
import jax
import jax.numpy as jnp

D_MODEL, HEADS, SEQ = 16, 4, 5
HEAD_DIM = D_MODEL // HEADS


def init():
    eye = jnp.eye(D_MODEL)
    return {"q": eye, "k": eye * 0.5, "v": eye, "o": jnp.ones((HEAD_DIM, D_MODEL)) / D_MODEL}


def split_heads(t):
    return t.reshape(SEQ, HEADS, HEAD_DIM).transpose(1, 0, 2)


def attention(params, x):
    q, k, v = (split_heads(x @ params[name]) for name in ("q", "k", "v"))
    weights = jax.nn.softmax(q @ k.transpose(0, 2, 1) / HEAD_DIM ** 0.5, axis=-1)
    merged = (weights @ v).transpose(1, 0, 2).reshape(SEQ, D_MODEL)
    return merged @ params["o"]


x = jnp.linspace(-1.0, 1.0, SEQ * D_MODEL).reshape(SEQ, D_MODEL)
print(attention(init(), x).shape)
