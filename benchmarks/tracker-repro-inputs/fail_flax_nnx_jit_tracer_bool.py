# jax-reduce tracker: reproduces jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[]. @ jax._src.core.error (verified in a fresh interpreter)
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


class NodeStates:
    __module__ = 'flax.nnx.extract'

    def __init__(self, aux, children):
        self.aux = aux
        self.children = children


def flatten_NodeStates(node):
    return (node.children, node.aux)


def unflatten_NodeStates(aux, children):
    return NodeStates(aux, tuple(children))


jax.tree_util.register_pytree_node(NodeStates, flatten_NodeStates, unflatten_NodeStates)


class State:
    __module__ = 'flax.nnx.statelib'

    def __init__(self, aux, children):
        self.aux = aux
        self.children = children


def flatten_State(node):
    return (node.children, node.aux)


def unflatten_State(aux, children):
    return State(aux, tuple(children))


jax.tree_util.register_pytree_node(State, flatten_State, unflatten_State)


class Param:
    __module__ = 'flax.nnx.variablelib'

    def __init__(self, aux, children):
        self.aux = aux
        self.children = children


def flatten_Param(node):
    return (node.children, node.aux)


def unflatten_Param(aux, children):
    return Param(aux, tuple(children))


jax.tree_util.register_pytree_node(Param, flatten_Param, unflatten_Param)

c_35 = np.zeros((32,), dtype=np.float32)
c_36 = np.ones((32, 32), dtype=np.float32)
c_37 = np.zeros((32,), dtype=np.float32)
c_38 = np.ones((32,), dtype=np.float32)
c_39 = np.zeros((32,), dtype=np.float32)
c_40 = np.ones((32, 32), dtype=np.float32)
c_41 = np.zeros((32,), dtype=np.float32)
c_42 = np.ones((32,), dtype=np.float32)
c_43 = np.zeros((32,), dtype=np.float32)
c_44 = np.ones((32, 32), dtype=np.float32)
c_45 = np.zeros((32,), dtype=np.float32)
c_46 = np.ones((32,), dtype=np.float32)
c_47 = np.zeros((32,), dtype=np.float32)
c_48 = np.ones((5, 32), dtype=np.float32)
c_49 = np.array([0.0], dtype=np.float32)
c_50 = np.array([[-0.17710275948047638], [-0.3305507302284241], [-0.020897218957543373], [-0.036145806312561035], [-0.1750641018152237], [-0.20131778717041016], [0.0654187947511673], [0.3882178068161011], [-0.007163079921156168], [-0.30477043986320496], [0.014208855107426643], [0.22349868714809418], [-0.16723375022411346], [0.15634983777999878], [7.107626061042538e-06], [0.0043021622113883495], [0.1389024257659912], [0.3217445909976959], [0.2757490575313568], [-0.05972179025411606], [0.12101371586322784], [-0.02436523512005806], [0.027182605117559433], [0.27516353130340576], [-0.2601493299007416], [-0.19017763435840607], [-0.013227379880845547], [0.10179202258586884], [0.12423980236053467], [0.1415628045797348], [-0.11888529360294342], [0.07865551114082336]], dtype=np.float32)
c_51 = np.array(0, dtype=np.int32)
c_52 = np.zeros((32,), dtype=np.float32)
c_53 = np.zeros((32, 32), dtype=np.float32)
c_54 = np.zeros((32,), dtype=np.float32)
c_55 = np.zeros((32,), dtype=np.float32)
c_56 = np.zeros((32,), dtype=np.float32)
c_57 = np.zeros((32, 32), dtype=np.float32)
c_58 = np.zeros((32,), dtype=np.float32)
c_59 = np.zeros((32,), dtype=np.float32)
c_60 = np.zeros((32,), dtype=np.float32)
c_61 = np.zeros((32, 32), dtype=np.float32)
c_62 = np.zeros((32,), dtype=np.float32)
c_63 = np.zeros((32,), dtype=np.float32)
c_64 = np.zeros((32,), dtype=np.float32)
c_65 = np.zeros((5, 32), dtype=np.float32)
c_66 = np.array([0.0], dtype=np.float32)
c_67 = np.zeros((32, 1), dtype=np.float32)
c_68 = np.zeros((32,), dtype=np.float32)
c_69 = np.zeros((32, 32), dtype=np.float32)
c_70 = np.zeros((32,), dtype=np.float32)
c_71 = np.zeros((32,), dtype=np.float32)
c_72 = np.zeros((32,), dtype=np.float32)
c_73 = np.zeros((32, 32), dtype=np.float32)
c_74 = np.zeros((32,), dtype=np.float32)
c_75 = np.zeros((32,), dtype=np.float32)
c_76 = np.zeros((32,), dtype=np.float32)
c_77 = np.zeros((32, 32), dtype=np.float32)
c_78 = np.zeros((32,), dtype=np.float32)
c_79 = np.zeros((32,), dtype=np.float32)
c_80 = np.zeros((32,), dtype=np.float32)
c_81 = np.zeros((5, 32), dtype=np.float32)
c_82 = np.array([0.0], dtype=np.float32)
c_83 = np.zeros((32, 1), dtype=np.float32)
c_84 = np.array(0, dtype=np.uint32)
c_85 = np.ones((32, 5), dtype=np.float32)
c_86 = np.array([-0.2373223602771759, 0.18871498107910156, 0.9499654769897461, -3.6217479705810547, -1.0301710367202759, -2.390345335006714, -0.8464205265045166, 0.12987709045410156, -0.05458911135792732, 0.9626958966255188, 1.8004086017608643, 1.4845781326293945, 2.544793128967285, -0.7762156128883362, -0.592219352722168, 2.2950708866119385, -0.43192994594573975, 1.6821346282958984, 1.565048336982727, 0.7615288496017456, -3.5871846675872803, -1.3404043912887573, 1.531658411026001, -0.1936032623052597, -0.5245586037635803, -0.38498586416244507, -1.7720892429351807, 1.431386113166809, -1.8814623355865479, 0.2779587209224701, 2.2721784114837646, 0.3516218066215515], dtype=np.float32)


def train_step_34(model, optimizer, x_17, x_18):
    x_1 = model.children[1][0][0]
    x_2 = model.children[1][0][1]
    x_3 = model.children[1][0][2]
    x_4 = model.children[1][0][3]
    x_5 = model.children[1][0][4]
    x_6 = model.children[1][0][5]
    x_7 = model.children[1][0][6]
    x_8 = model.children[1][0][7]
    x_9 = model.children[1][0][8]
    x_10 = model.children[1][0][9]
    x_11 = model.children[1][0][10]
    x_12 = model.children[1][0][11]
    x_13 = model.children[1][0][12]
    x_14 = model.children[1][0][13]
    x_15 = model.children[1][0][14]
    x_16 = model.children[1][0][15]

    def loss_fn_33(model):
        x_19 = model.children[1][0].children[0][0]['linear']['bias'].children[0]
        x_20 = model.children[1][0].children[0][0]['linear']['kernel'].children[0]
        x_21 = model.children[1][0].children[1]['bias'].children[0]
        x_22 = model.children[1][0].children[1]['kernel'].children[0]
        jnp.asarray(x_17)
        jnp.asarray(x_22)
        jnp.asarray(x_21)
        jnp.asarray(x_17, jnp.dtype('float32'))
        jnp.asarray(x_22, jnp.dtype('float32'))
        jnp.asarray(x_21, jnp.dtype('float32'))
        v_23 = lax.dot_general(x_17, x_22, (((1,), (0,)), ((), ())), precision=None, out_sharding=None)
        v_24 = jnp.reshape(x_21, (1, -1))
        v_25 = v_23 + v_24
        jnp.asarray(v_25)
        jnp.asarray(x_20)
        jnp.asarray(x_19)
        jnp.asarray(v_25, jnp.dtype('float32'))
        jnp.asarray(x_20, jnp.dtype('float32'))
        jnp.asarray(x_19, jnp.dtype('float32'))
        v_26 = lax.dot_general(v_25, x_20, (((1,), (0,)), ((), ())), precision=None, out_sharding=None)
        v_27 = jnp.reshape(x_19, (1, -1))
        v_28 = v_26 + v_27
        v_29 = jax.nn.gelu(v_28)
        v_30 = jnp.abs(v_29)
        v_31 = v_30.mean()
        v_32 = v_31 > 1.0
        bool(v_32)

    jax.value_and_grad(loss_fn_33, argnums=0, has_aux=True, holomorphic=False, allow_int=False)(NodeStates((None,), ((), (State(('blocks', 'embed', 'out'), ({0: {'linear': {'bias': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_1,)), 'kernel': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_2,))}, 'norm': {'bias': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_3,)), 'scale': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_4,))}}, 1: {'linear': {'bias': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_5,)), 'kernel': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_6,))}, 'norm': {'bias': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_7,)), 'scale': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_8,))}}, 2: {'linear': {'bias': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_9,)), 'kernel': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_10,))}, 'norm': {'bias': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_11,)), 'scale': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_12,))}}}, {'bias': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_13,)), 'kernel': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_14,))}, {'bias': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_15,)), 'kernel': Param((('eager_sharding', True), ('hijax', False), ('ref', False)), (x_16,))})),))))


jax.jit(train_step_34, donate_argnums=None, donate_argnames=None, keep_unused=False, inline=False)(NodeStates((None,), ((), ([c_35, c_36, c_37, c_38, c_39, c_40, c_41, c_42, c_43, c_44, c_45, c_46, c_47, c_48, c_49, c_50],))), NodeStates((None,), ((), ([c_51, c_52, c_53, c_54, c_55, c_56, c_57, c_58, c_59, c_60, c_61, c_62, c_63, c_64, c_65, c_66, c_67, c_68, c_69, c_70, c_71, c_72, c_73, c_74, c_75, c_76, c_77, c_78, c_79, c_80, c_81, c_82, c_83, c_84],))), c_85, c_86)
