# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 df674589d06d3da50080efa492c30e7c27217818413581b4f3493508c48fd86d
# signature: ValueError: pytree structure error: different numbers of pytree children at key path @ jax._src.tree_util.tree_map [jax.tree_util.tree_map()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.tree.map(lambda *_: None, {'backbone': {}, 'head': {}}, {'backbone': {}})
