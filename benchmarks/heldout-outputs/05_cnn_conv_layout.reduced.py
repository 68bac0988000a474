# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 5d302dfc498b2c3991c1fd3ec1ce021b8ddcc945d5369ea53233f9b5dd5d4212
# signature: ValueError: conv_general_dilated lhs feature dimension size divided by feature_group_count must equal the rhs input feature dimension size, but N // N != N @ jax._src.lax.convolution._conv_general_dilated_shape_rule [jax.lax.conv_general_dilated -> conv_general_dilated(float:4, float:4)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
from jax import lax
lax.conv_general_dilated(
    jnp.ones((2, 3, 4, 5)), jnp.ones((6, 1, 7, 8)), window_strides=(0,), padding="SAME")
