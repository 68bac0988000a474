# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 5ce9ebcfb2001813f850204aaf4dc3fc82955184dd0f0b6452d95555687d3167
# signature: jax.errors.TracerIntegerConversionError: The __index__() method was called on traced array with shape int32[] @ jax._src.core.error
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.lax.fori_loop(0, 0, lambda i, h: [][i], 1.0)
