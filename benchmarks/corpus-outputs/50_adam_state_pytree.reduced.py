# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 22d006ed27a70124e1e5821765a414be92ab33e124becc2e9c9d95afa1639c13
# signature: ValueError: pytree structure error: different numbers of pytree children at key path @ jax._src.tree_util.tree_map [jax.tree_util.tree_map()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.tree_util.tree_map(lambda *_: 1.0, {'count': 0}, {'dec2': 0.0, 'enc1': 0.0})
