# A linen transformer encoder block for sequence classification: the padding mask should be
# (batch, 1, 1, seq) (nn.make_attention_mask's convention), but it is passed as the raw
# (batch, seq) padding mask, so the attention's jnp.where cannot broadcast it against the
# (batch, heads, seq, seq) weights.
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

SEQ, DIM, HEADS, VOCAB = 10, 32, 4, 40


class EncoderBlock(nn.Module):
    dim: int
    heads: int

    @nn.compact
    def __call__(self, x, mask, deterministic):
        h = nn.LayerNorm()(x)
        h = nn.MultiHeadDotProductAttention(num_heads=self.heads, qkv_features=self.dim)(
            h, h, mask=mask, deterministic=deterministic)
        x = x + nn.Dropout(0.1)(h, deterministic=deterministic)
        h = nn.Dense(4 * self.dim)(nn.LayerNorm()(x))
        return x + nn.Dense(self.dim)(nn.gelu(h))


class Encoder(nn.Module):
    @nn.compact
    def __call__(self, tokens, deterministic=True):
        padding = tokens > 0
        x = nn.Embed(VOCAB, DIM)(tokens)
        x = x + self.param("pos", nn.initializers.normal(0.02), (SEQ, DIM))
        for _ in range(2):
            x = EncoderBlock(DIM, HEADS)(x, padding, deterministic)
        pooled = (x * padding[..., None]).sum(1) / padding.sum(1, keepdims=True)
        return nn.Dense(2)(pooled)


def batches(rng, n):
    for _ in range(n):
        lengths = rng.integers(3, SEQ + 1, size=(16,))
        tokens = rng.integers(1, VOCAB, size=(16, SEQ)) * (np.arange(SEQ) < lengths[:, None])
        yield jnp.asarray(tokens), jnp.asarray(lengths % 2)


def main():
    rng = np.random.default_rng(0)
    model = Encoder()
    tx = optax.adamw(1e-3)

    @jax.jit
    def init(key, tokens):
        params = model.init(key, tokens)["params"]
        return params, tx.init(params)

    @jax.jit
    def step(params, opt_state, tokens, labels, key):
        def loss_fn(params):
            logits = model.apply({"params": params}, tokens, False, rngs={"dropout": key})
            return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    data = batches(rng, 3)
    tokens, labels = next(data)
    params, opt_state = init(jax.random.PRNGKey(0), tokens)
    for i, (tokens, labels) in enumerate(data):
        params, opt_state, loss = step(params, opt_state, tokens, labels, jax.random.PRNGKey(i))
        print(i, float(loss))


if __name__ == "__main__":
    main()
