# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 f0923beeb36ac96c2f8e30a23aa657f44ede936205a78e87d34cd0e934a8bb2d
# signature: ValueError: pytree structure error: different numbers of pytree children at key path @ jax._src.tree_util.tree_map [jax.tree_util.tree_map()], entered through optax
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import optax
tx = optax.adamw(1.0)
tx.update({'head': {}}, tx.init({'backbone': {}, 'head': {}}))
