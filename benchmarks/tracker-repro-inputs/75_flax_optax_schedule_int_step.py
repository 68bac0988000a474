# jax-reduce tracker: reproduces jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape int32[] @ jax._src.core.error (verified in a fresh interpreter)
import collections
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

EmptyState = collections.namedtuple('EmptyState', [], module='optax._src.base')
ScaleByAdamState = collections.namedtuple('ScaleByAdamState', ['count', 'mu', 'nu'], module='optax._src.transform')
ScaleByScheduleState = collections.namedtuple('ScaleByScheduleState', ['count'], module='optax._src.transform')

c_193 = np.ones((32, 12, 12, 1), dtype=np.float32)
c_212 = np.array([6, 2, 1, 2, 0, 9, 2, 9, 2, 5, 7, 4, 8, 1, 6, 4, 3, 7, 4, 2, 9, 3, 8, 3, 5, 0, 8, 6, 1, 2, 3, 9], dtype=np.int32)
c_247 = np.array([[[[0.22410647571086884, -0.09651514887809753, 0.15530376136302948, -0.40215378999710083, 0.12267209589481354, 0.2767742872238159, -0.08799661695957184, -0.1601884663105011]], [[0.19345441460609436, -0.18034236133098602, 0.024602113291621208, 0.35375240445137024, -0.5113034248352051, 0.09012982249259949, -0.2654789686203003, 0.1552649885416031]], [[-0.03454425558447838, 0.008783703669905663, -0.026553455740213394, 0.1315649151802063, 0.05718579143285751, -0.6932802796363831, 0.3182016611099243, 0.07378734648227692]]], [[[0.08797740936279297, 0.1725810021162033, -0.3282606899738312, 0.6511535048484802, 0.20217359066009521, -0.33978956937789917, 0.22090314328670502, -0.5210878849029541]], [[-0.3193295896053314, 0.5667928457260132, 0.6624239087104797, -0.5635087490081787, -0.3112187087535858, 0.5234243869781494, -0.49526867270469666, -0.09843246638774872]], [[0.5137434005737305, 0.4019138216972351, 0.2253841757774353, 0.06272459030151367, -0.01308808010071516, -0.15055689215660095, -0.7457684874534607, 0.35415899753570557]]], [[[-0.11229104548692703, -0.10935517400503159, -0.14292825758457184, 0.22049041092395782, -0.6175134778022766, 0.6552092432975769, 0.1420866698026657, -0.14631444215774536]], [[0.4775843024253845, -0.555616557598114, -0.5260383486747742, -0.4299963414669037, -0.0768321305513382, -0.26612284779548645, 0.1714223176240921, -0.023492248728871346]], [[0.1975560337305069, 0.5321276187896729, 0.12646228075027466, -0.7568356990814209, -0.35820209980010986, -0.16518670320510864, -0.22560298442840576, 0.28855374455451965]]]], dtype=np.float32)
c_248 = np.zeros((8,), dtype=np.float32)
c_249 = np.ones((3, 3, 8, 16), dtype=np.float32)
c_250 = np.zeros((16,), dtype=np.float32)
c_251 = np.ones((16, 10), dtype=np.float32)
c_252 = np.zeros((10,), dtype=np.float32)
c_253 = np.array(0, dtype=np.int32)
c_254 = np.zeros((8,), dtype=np.float32)
c_255 = np.zeros((3, 3, 1, 8), dtype=np.float32)
c_256 = np.zeros((16,), dtype=np.float32)
c_257 = np.zeros((3, 3, 8, 16), dtype=np.float32)
c_258 = np.zeros((10,), dtype=np.float32)
c_259 = np.zeros((16, 10), dtype=np.float32)
c_260 = np.zeros((8,), dtype=np.float32)
c_261 = np.zeros((3, 3, 1, 8), dtype=np.float32)
c_262 = np.zeros((16,), dtype=np.float32)
c_263 = np.zeros((3, 3, 8, 16), dtype=np.float32)
c_264 = np.zeros((10,), dtype=np.float32)
c_265 = np.zeros((16, 10), dtype=np.float32)
c_266 = np.array(0, dtype=np.int32)


def step_184(params, opt_state):
    x_1 = params['Conv_0']['bias']
    x_2 = params['Conv_0']['kernel']
    x_3 = params['Conv_1']['bias']
    x_4 = params['Conv_1']['kernel']
    x_5 = params['Dense_0']['bias']
    x_6 = params['Dense_0']['kernel']
    x_7 = opt_state[1][0]
    x_8 = opt_state[1][1]['Conv_0']['bias']
    x_9 = opt_state[1][1]['Conv_0']['kernel']
    x_10 = opt_state[1][1]['Conv_1']['bias']
    x_11 = opt_state[1][1]['Conv_1']['kernel']
    x_12 = opt_state[1][1]['Dense_0']['bias']
    x_13 = opt_state[1][1]['Dense_0']['kernel']
    x_14 = opt_state[1][2]['Conv_0']['bias']
    x_15 = opt_state[1][2]['Conv_0']['kernel']
    x_16 = opt_state[1][2]['Conv_1']['bias']
    x_17 = opt_state[1][2]['Conv_1']['kernel']
    x_18 = opt_state[1][2]['Dense_0']['bias']
    x_19 = opt_state[1][2]['Dense_0']['kernel']
    x_20 = opt_state[3][0]
    out_22 = jax.value_and_grad(loss_fn_21)(params)
    v_23 = out_22[1]['Conv_0']['bias']
    v_24 = out_22[1]['Conv_0']['kernel']
    v_25 = out_22[1]['Conv_1']['bias']
    v_26 = out_22[1]['Conv_1']['kernel']
    v_27 = out_22[1]['Dense_0']['bias']
    v_28 = out_22[1]['Dense_0']['kernel']
    v_23.real
    v_29 = jnp.square(v_23)
    v_30 = v_23.imag
    v_31 = jnp.square(v_30)
    v_32 = v_29 + v_31
    v_24.real
    v_33 = jnp.square(v_24)
    v_34 = v_24.imag
    v_35 = jnp.square(v_34)
    v_36 = v_33 + v_35
    v_25.real
    v_37 = jnp.square(v_25)
    v_38 = v_25.imag
    v_39 = jnp.square(v_38)
    v_40 = v_37 + v_39
    v_26.real
    v_41 = jnp.square(v_26)
    v_42 = v_26.imag
    v_43 = jnp.square(v_42)
    v_44 = v_41 + v_43
    v_27.real
    v_45 = jnp.square(v_27)
    v_46 = v_27.imag
    v_47 = jnp.square(v_46)
    v_48 = v_45 + v_47
    v_28.real
    v_49 = jnp.square(v_28)
    v_50 = v_28.imag
    v_51 = jnp.square(v_50)
    v_52 = v_49 + v_51
    v_53 = jnp.sum(v_32)
    v_54 = jnp.sum(v_36)
    v_55 = jnp.sum(v_40)
    v_56 = jnp.sum(v_44)
    v_57 = jnp.sum(v_48)
    v_58 = jnp.sum(v_52)
    v_59 = 0 + v_53
    v_60 = v_59 + v_54
    v_61 = v_60 + v_55
    v_62 = v_61 + v_56
    v_63 = v_62 + v_57
    v_64 = v_63 + v_58
    v_65 = jnp.sqrt(v_64)
    v_66 = jnp.array(v_65)
    v_67 = v_66 < 1.0
    jnp.squeeze(v_67)
    v_66.astype(jnp.dtype('float32'))
    v_68 = v_23 / v_66
    v_69 = v_68 * 1.0
    v_70 = lax.select(v_67, v_23, v_69)
    v_66.astype(jnp.dtype('float32'))
    v_71 = v_24 / v_66
    v_72 = v_71 * 1.0
    v_73 = lax.select(v_67, v_24, v_72)
    v_66.astype(jnp.dtype('float32'))
    v_74 = v_25 / v_66
    v_75 = v_74 * 1.0
    v_76 = lax.select(v_67, v_25, v_75)
    v_66.astype(jnp.dtype('float32'))
    v_77 = v_26 / v_66
    v_78 = v_77 * 1.0
    v_79 = lax.select(v_67, v_26, v_78)
    v_66.astype(jnp.dtype('float32'))
    v_80 = v_27 / v_66
    v_81 = v_80 * 1.0
    v_82 = lax.select(v_67, v_27, v_81)
    v_66.astype(jnp.dtype('float32'))
    v_83 = v_28 / v_66
    v_84 = v_83 * 1.0
    v_85 = lax.select(v_67, v_28, v_84)
    v_86 = v_70 ** 1
    v_87 = 0.09999999999999998 * v_86
    v_88 = 0.9 * x_8
    v_89 = v_87 + v_88
    v_90 = v_73 ** 1
    v_91 = 0.09999999999999998 * v_90
    v_92 = 0.9 * x_9
    v_93 = v_91 + v_92
    v_94 = v_76 ** 1
    v_95 = 0.09999999999999998 * v_94
    v_96 = 0.9 * x_10
    v_97 = v_95 + v_96
    v_98 = v_79 ** 1
    v_99 = 0.09999999999999998 * v_98
    v_100 = 0.9 * x_11
    v_101 = v_99 + v_100
    v_102 = v_82 ** 1
    v_103 = 0.09999999999999998 * v_102
    v_104 = 0.9 * x_12
    v_105 = v_103 + v_104
    v_106 = v_85 ** 1
    v_107 = 0.09999999999999998 * v_106
    v_108 = 0.9 * x_13
    v_109 = v_107 + v_108
    v_110 = v_70 ** 2
    v_111 = 0.0010000000000000009 * v_110
    v_112 = 0.999 * x_14
    v_113 = v_111 + v_112
    v_114 = v_73 ** 2
    v_115 = 0.0010000000000000009 * v_114
    v_116 = 0.999 * x_15
    v_117 = v_115 + v_116
    v_118 = v_76 ** 2
    v_119 = 0.0010000000000000009 * v_118
    v_120 = 0.999 * x_16
    v_121 = v_119 + v_120
    v_122 = v_79 ** 2
    v_123 = 0.0010000000000000009 * v_122
    v_124 = 0.999 * x_17
    v_125 = v_123 + v_124
    v_126 = v_82 ** 2
    v_127 = 0.0010000000000000009 * v_126
    v_128 = 0.999 * x_18
    v_129 = v_127 + v_128
    v_130 = v_85 ** 2
    v_131 = 0.0010000000000000009 * v_130
    v_132 = 0.999 * x_19
    v_133 = v_131 + v_132
    jnp.asarray(x_7)
    v_134 = jnp.array(2147483647, jnp.dtype('int32'))
    v_135 = jnp.array(1, jnp.dtype('int32'))
    v_136 = x_7 < v_134
    v_137 = x_7 + v_135
    v_138 = jnp.where(v_136, v_137, v_134)
    out_140 = jax.jit(tree_bias_correction_139, inline=True)({'Conv_0': {'bias': v_89, 'kernel': v_93}, 'Conv_1': {'bias': v_97, 'kernel': v_101}, 'Dense_0': {'bias': v_105, 'kernel': v_109}}, 0.9, v_138)
    v_141 = out_140['Conv_0']['bias']
    v_142 = out_140['Conv_0']['kernel']
    v_143 = out_140['Conv_1']['bias']
    v_144 = out_140['Conv_1']['kernel']
    v_145 = out_140['Dense_0']['bias']
    v_146 = out_140['Dense_0']['kernel']
    out_147 = jax.jit(tree_bias_correction_139, inline=True)({'Conv_0': {'bias': v_113, 'kernel': v_117}, 'Conv_1': {'bias': v_121, 'kernel': v_125}, 'Dense_0': {'bias': v_129, 'kernel': v_133}}, 0.999, v_138)
    v_148 = out_147['Conv_0']['bias']
    v_149 = out_147['Conv_0']['kernel']
    v_150 = out_147['Conv_1']['bias']
    v_151 = out_147['Conv_1']['kernel']
    v_152 = out_147['Dense_0']['bias']
    v_153 = out_147['Dense_0']['kernel']
    v_154 = v_148 + 0.0
    v_155 = jnp.sqrt(v_154)
    v_156 = v_155 + 1e-08
    v_157 = v_141 / v_156
    v_158 = v_149 + 0.0
    v_159 = jnp.sqrt(v_158)
    v_160 = v_159 + 1e-08
    v_161 = v_142 / v_160
    v_162 = v_150 + 0.0
    v_163 = jnp.sqrt(v_162)
    v_164 = v_163 + 1e-08
    v_165 = v_143 / v_164
    v_166 = v_151 + 0.0
    v_167 = jnp.sqrt(v_166)
    v_168 = v_167 + 1e-08
    v_169 = v_144 / v_168
    v_170 = v_152 + 0.0
    v_171 = jnp.sqrt(v_170)
    v_172 = v_171 + 1e-08
    v_173 = v_145 / v_172
    v_174 = v_153 + 0.0
    v_175 = jnp.sqrt(v_174)
    v_176 = v_175 + 1e-08
    v_177 = v_146 / v_176
    v_113.astype(jnp.dtype('float32'))
    v_117.astype(jnp.dtype('float32'))
    v_121.astype(jnp.dtype('float32'))
    v_125.astype(jnp.dtype('float32'))
    v_129.astype(jnp.dtype('float32'))
    v_133.astype(jnp.dtype('float32'))
    v_178 = 0.0005 * x_1
    v_157 + v_178
    v_179 = 0.0005 * x_2
    v_161 + v_179
    v_180 = 0.0005 * x_3
    v_165 + v_180
    v_181 = 0.0005 * x_4
    v_169 + v_181
    v_182 = 0.0005 * x_5
    v_173 + v_182
    v_183 = 0.0005 * x_6
    v_177 + v_183
    int(x_20)


def loss_fn_21(params):
    x_185 = params['Conv_0']['bias']
    x_186 = params['Conv_0']['kernel']
    x_187 = params['Conv_1']['bias']
    x_188 = params['Conv_1']['kernel']
    x_189 = params['Dense_0']['bias']
    x_190 = params['Dense_0']['kernel']
    jax.eval_shape(fun_191)
    jax.eval_shape(fun_192)
    jnp.asarray(c_193)
    jnp.asarray(x_186)
    jnp.asarray(x_185)
    jnp.asarray(c_193, jnp.dtype('float32'))
    jnp.asarray(x_186, jnp.dtype('float32'))
    jnp.asarray(x_185, jnp.dtype('float32'))
    v_194 = lax.conv_general_dilated(c_193, x_186, (1, 1), 'SAME', lhs_dilation=(1, 1), rhs_dilation=(1, 1), dimension_numbers=jax.lax.ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2)), feature_group_count=1, precision=None)
    v_195 = x_185.reshape((1, 1, 1, 8))
    v_196 = v_194 + v_195
    v_197 = jax.nn.relu(v_196)
    v_198 = lax.reduce_window(v_197, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), 'VALID')
    v_199 = v_198 / np.int64(4)
    jax.eval_shape(fun_200)
    jax.eval_shape(fun_201)
    jnp.asarray(v_199)
    jnp.asarray(x_188)
    jnp.asarray(x_187)
    jnp.asarray(v_199, jnp.dtype('float32'))
    jnp.asarray(x_188, jnp.dtype('float32'))
    jnp.asarray(x_187, jnp.dtype('float32'))
    v_202 = lax.conv_general_dilated(v_199, x_188, (1, 1), 'SAME', lhs_dilation=(1, 1), rhs_dilation=(1, 1), dimension_numbers=jax.lax.ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2)), feature_group_count=1, precision=None)
    v_203 = x_187.reshape((1, 1, 1, 16))
    v_204 = v_202 + v_203
    v_205 = jax.nn.relu(v_204)
    v_206 = v_205.mean(axis=(1, 2))
    jax.eval_shape(fun_207)
    jax.eval_shape(fun_208)
    jnp.asarray(v_206)
    jnp.asarray(x_190)
    jnp.asarray(x_189)
    jnp.asarray(v_206, jnp.dtype('float32'))
    jnp.asarray(x_190, jnp.dtype('float32'))
    jnp.asarray(x_189, jnp.dtype('float32'))
    v_209 = lax.dot_general(v_206, x_190, (((1,), (0,)), ((), ())), precision=None)
    v_210 = jnp.reshape(x_189, (1, -1))
    v_211 = v_209 + v_210
    v_213 = jnp.expand_dims(c_212, 1)
    v_214 = jnp.take_along_axis(v_211, v_213, axis=1)
    v_215 = v_214.take(0, axis=1)
    v_216 = jax.nn.logsumexp(v_211, axis=1, where=None)
    v_217 = v_216 - v_215
    v_218 = v_217.mean()
    return v_218


def fun_191():
    v_219 = jax.random.key(0)
    v_220 = jax.nn.initializers.lecun_normal()(v_219, (3, 3, 1, 8), jnp.float32)
    return v_220


def fun_192():
    v_221 = jax.random.key(0)
    v_222 = jax.nn.initializers.zeros(v_221, (8,), jnp.float32)
    return v_222


def fun_200():
    v_223 = jax.random.key(0)
    v_224 = jax.nn.initializers.lecun_normal()(v_223, (3, 3, 8, 16), jnp.float32)
    return v_224


def fun_201():
    v_225 = jax.random.key(0)
    v_226 = jax.nn.initializers.zeros(v_225, (16,), jnp.float32)
    return v_226


def fun_207():
    v_227 = jax.random.key(0)
    v_228 = jax.nn.initializers.lecun_normal()(v_227, (16, 10), jnp.float32)
    return v_228


def fun_208():
    v_229 = jax.random.key(0)
    v_230 = jax.nn.initializers.zeros(v_229, (10,), jnp.float32)
    return v_230


def tree_bias_correction_139(moment, x_237, x_238):
    x_231 = moment['Conv_0']['bias']
    x_232 = moment['Conv_0']['kernel']
    x_233 = moment['Conv_1']['bias']
    x_234 = moment['Conv_1']['kernel']
    x_235 = moment['Dense_0']['bias']
    x_236 = moment['Dense_0']['kernel']
    v_239 = x_237 ** x_238
    v_240 = 1 - v_239
    v_240.astype(jnp.dtype('float32'))
    v_241 = x_231 / v_240
    v_240.astype(jnp.dtype('float32'))
    v_242 = x_232 / v_240
    v_240.astype(jnp.dtype('float32'))
    v_243 = x_233 / v_240
    v_240.astype(jnp.dtype('float32'))
    v_244 = x_234 / v_240
    v_240.astype(jnp.dtype('float32'))
    v_245 = x_235 / v_240
    v_240.astype(jnp.dtype('float32'))
    v_246 = x_236 / v_240
    return {'Conv_0': {'bias': v_241, 'kernel': v_242}, 'Conv_1': {'bias': v_243, 'kernel': v_244}, 'Dense_0': {'bias': v_245, 'kernel': v_246}}


jax.jit(step_184)({'Conv_0': {'kernel': c_247, 'bias': c_248}, 'Conv_1': {'kernel': c_249, 'bias': c_250}, 'Dense_0': {'kernel': c_251, 'bias': c_252}}, (EmptyState(), ScaleByAdamState(c_253, {'Conv_0': {'bias': c_254, 'kernel': c_255}, 'Conv_1': {'bias': c_256, 'kernel': c_257}, 'Dense_0': {'bias': c_258, 'kernel': c_259}}, {'Conv_0': {'bias': c_260, 'kernel': c_261}, 'Conv_1': {'bias': c_262, 'kernel': c_263}, 'Dense_0': {'bias': c_264, 'kernel': c_265}}), EmptyState(), ScaleByScheduleState(c_266), EmptyState()))
