# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 4358c1ccdb9c9d8f9dae8359e2a942cb2c1f6724e45058f66e490ec0b37ec462
# signature: ValueError: pytree structure error: different numbers of pytree children at key path @ jax._src.tree_util.tree_map [jax.tree_util.tree_map()], entered through optax
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import optax
tx = optax.adamw(1.0)
tx.update({'head_c': {}}, tx.init({'head_c': {}, 'head_e': {}}))
