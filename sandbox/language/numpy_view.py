"""The numpy view: array creation and math for tool code, numpy's ways to raw memory and files closed.

numpy is C code that reads and writes memory by address. Each way tool code could steer it
there is closed here or in the guards:

- the view is an allowlist (``NUMPY``, ``LINALG``, ``RANDOM``, ``FFT``): no ``load``/``save``/
  ``fromfile``/``loadtxt``/``genfromtxt``/``memmap``/``DataSource`` (files), no ``ctypeslib``,
  ``lib`` (``stride_tricks.as_strided`` reads any address), ``testing``, ``f2py``, ``distutils``,
  ``show_config``, no ``set_printoptions``/``seterr``/``seterrcall`` (process-wide, with callables),
  no legacy ``np.random.seed``/``rand`` (one global generator, the same in every forked worker),
  no ``frompyfunc`` (object arrays);
- attributes of numpy's objects (arrays, scalars, dtypes, generators, ufuncs, ...) are read
  through an allowlist per class (``library_rules.LibraryRule``): no ``tofile``/``dump``/``dumps``,
  ``ctypes``, ``data``, ``base``, ``getfield``/``setfield``, ``bit_generator``; every method comes
  back wrapped so that its result is checked;
- object arrays (``dtype=object``, and ``StringDType``, whose memory holds pointers) are refused
  from every function, ufunc, method and generator call: their buffer is raw object pointers, which
  ``memoryview(...).cast("B")`` or ``np.frombuffer`` would let tool code rewrite. An operator
  between an array and a Python object numpy has no type for (``arr + Decimal(1)``) still makes
  one, as in CPython; such an array offers only ``dtype``, ``shape``, ``ndim``, ``size``,
  ``tolist`` and ``item``, functions refuse it, and, under the language wall, no C function gets
  its buffer: arrays and void scalars holding object pointers are gated (``bufferless``);
- ``np.ndarray`` and ``type(arr)`` are a stand-in that answers ``isinstance`` but cannot be
  called (the real constructor builds an array over any buffer) nor subclassed;
- numpy reads ``__array_interface__`` from any object it is given: every class the tool makes
  (and pydantic models, enums) answers None (``array_interface.close_array_interface``).
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable, Iterable
from typing import Any

from sandbox.language import bufferless
from sandbox.language.arming import on_arming
from sandbox.language.guards import guarded_getattr
from sandbox.language.library_rules import TYPE_STAND_INS, LibraryRule, register_library_types, words
from sandbox.language.rules import refuse, violation
from sandbox.process.plain import ONE_THREAD

for _key, _value in ONE_THREAD.items():  # numpy's BLAS would start threads when imported
    os.environ.setdefault(_key, _value)

import numpy as np  # noqa: E402 - after the thread settings

_CHECKED_FUNCTIONS = words(
    """
array asarray ascontiguousarray asfortranarray copy zeros ones empty full zeros_like ones_like
empty_like full_like arange linspace logspace geomspace eye identity diag diagflat diagonal tri
tril triu meshgrid indices fromiter frombuffer fromfunction repeat tile concatenate concat stack
vstack hstack dstack column_stack block split array_split hsplit vsplit dsplit reshape ravel
transpose swapaxes moveaxis rollaxis expand_dims squeeze flip fliplr flipud roll rot90 atleast_1d
atleast_2d atleast_3d broadcast_to broadcast_arrays append insert delete pad resize trim_zeros
unique unique_all unique_counts unique_inverse unique_values searchsorted sort argsort lexsort
partition argpartition where nonzero argwhere flatnonzero extract select choose compress take
take_along_axis put put_along_axis place putmask copyto clip isin intersect1d union1d setdiff1d
setxor1d round around fix nan_to_num interp real imag angle sum prod cumsum cumprod
cumulative_sum cumulative_prod mean average median std var min max amin amax ptp argmin argmax
percentile quantile nanmean nanmedian nanstd nanvar nansum nanprod nanmin nanmax nanargmin
nanargmax nanpercentile nanquantile nancumsum nancumprod all any count_nonzero histogram
histogram2d histogram_bin_edges bincount digitize corrcoef cov correlate convolve diff ediff1d
gradient cross dot vdot inner outer matmul tensordot einsum kron trace trapezoid polyfit polyval
roots isclose allclose array_equal array_equiv isnan isinf isfinite isneginf isposinf isreal
iscomplex isscalar iscomplexobj isrealobj shape ndim size result_type promote_types can_cast
issubdtype common_type min_scalar_type array2string array_repr array_str format_float_positional
format_float_scientific base_repr binary_repr apply_along_axis apply_over_axes piecewise
unravel_index ravel_multi_index ndindex ndenumerate ix_ datetime_as_string datetime_data
busday_count busday_offset is_busday may_share_memory shares_memory sinc i0 unwrap
"""
)
"""Functions taking and returning data: object arrays refused in their arguments and results."""

_UFUNCS = words(
    """
add subtract multiply divide true_divide floor_divide power float_power mod remainder fmod divmod
negative positive absolute abs fabs sign sqrt cbrt square reciprocal exp exp2 expm1 log log2 log10
log1p logaddexp logaddexp2 sin cos tan arcsin arccos arctan arctan2 hypot sinh cosh tanh arcsinh
arccosh arctanh deg2rad rad2deg degrees radians floor ceil trunc rint maximum minimum fmax fmin
equal not_equal less less_equal greater greater_equal logical_and logical_or logical_not
logical_xor bitwise_and bitwise_or bitwise_xor invert left_shift right_shift gcd lcm conj
conjugate copysign nextafter signbit heaviside modf frexp ldexp spacing isnat
"""
)
"""Universal functions (``np.add``, ``np.add.reduce``, ...), each wrapped in a ``Ufunc``."""

_CLASSES = words(
    """
dtype generic number integer signedinteger unsignedinteger inexact floating complexfloating
bool bool_ int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp uintp int_ uint float16
float32 float64 longdouble half single double complex64 complex128 clongdouble str_ bytes_
void datetime64 timedelta64 character flexible errstate finfo iinfo
"""
)
"""Scalar types, dtypes and helpers: numpy's own classes (calls build scalars; no subclasses)."""

_CONSTANTS = words("pi e inf nan newaxis euler_gamma little_endian")

LINALG = words(
    """
matrix_power solve tensorsolve tensorinv inv cholesky eigvals eigvalsh pinv slogdet det svd svdvals
eig eigh lstsq norm qr cond matrix_rank multi_dot trace diagonal cross outer tensordot matmul
matrix_transpose matrix_norm vector_norm vecdot
"""
)
FFT = words(
    """
fft ifft rfft irfft hfft ihfft rfftn irfftn rfft2 irfft2 fft2 ifft2 fftn ifftn fftshift ifftshift
fftfreq rfftfreq
"""
)

LEFT_OUT = {
    **dict.fromkeys(
        (
            "load",
            "save",
            "savez",
            "savez_compressed",
            "savetxt",
            "loadtxt",
            "genfromtxt",
            "fromfile",
            "fromregex",
            "memmap",
            "DataSource",
            "fromstring",
            "tofile",
        ),
        "it reads or writes files; pass the data as arguments and return it",
    ),  # fmt: skip
    **dict.fromkeys(
        (
            "lib",
            "ctypeslib",
            "testing",
            "f2py",
            "distutils",
            "core",
            "char",
            "rec",
            "ma",
            "matlib",
            "dtypes",
            "typing",
            "polynomial",
            "strings",
            "emath",
            "exceptions",
            "version",
        ),
        "toolpen's numpy offers numpy.linalg, numpy.random and numpy.fft only",
    ),  # fmt: skip
    **dict.fromkeys(
        (
            "set_printoptions",
            "get_printoptions",
            "printoptions",
            "seterr",
            "geterr",
            "seterrcall",
            "geterrcall",
            "setbufsize",
            "getbufsize",
        ),
        "it changes process-wide state (and runs callables); use np.errstate(...) or array2string(...)",
    ),  # fmt: skip
    **dict.fromkeys(
        ("show_config", "show_runtime", "info", "get_include", "test"), "it describes the installation"
    ),
    "frompyfunc": "its results are object arrays; use np.vectorize",
    "object_": "object arrays hold raw pointers to Python objects; keep Python objects in lists",
    "nditer": "use ravel(), flat or ndenumerate",
    "matrix": "use 2-d arrays and @",
    "recarray": "use structured arrays",
}
"""Names numpy has and the view leaves out, and why (said in an import refusal)."""

RANDOM_LEFT_OUT = (
    "the global generator (np.random.seed, rand, randint, choice, ...) is process-wide state; "
    "use rng = np.random.default_rng(seed) and rng.random(), rng.integers(...), rng.choice(...)"
)

OBJECT_ARRAYS = (
    "numpy object arrays are not available in toolpen: their memory holds raw pointers to Python"
    " objects; keep such values in lists, or give numpy numbers and strings"
)


def _holds_pointers(value: Any) -> bool:
    return isinstance(value, np.ndarray | np.generic) and value.dtype.hasobject


def no_object_arrays(result: Any) -> Any:
    """``result`` unless it is (or a tuple or list directly holds) an object array."""
    if _holds_pointers(result):
        refuse(OBJECT_ARRAYS)
    if type(result) in (tuple, list) or (isinstance(result, tuple) and hasattr(result, "_fields")):
        for item in result:
            if _holds_pointers(item):
                refuse(OBJECT_ARRAYS)
    return result


def _no_object_arguments(values: Iterable[Any]) -> None:
    for value in values:
        if _holds_pointers(value):
            refuse(OBJECT_ARRAYS)


def checked(function: Callable[..., Any], name: str | None = None) -> Callable[..., Any]:
    """``function`` refusing object arrays among its arguments and in its result."""

    def call(*args: Any, **kwargs: Any) -> Any:
        _no_object_arguments(args)
        _no_object_arguments(kwargs.values())
        return no_object_arrays(function(*args, **kwargs))

    label: Any = name or getattr(function, "__name__", "function")
    call.__name__ = call.__qualname__ = label
    call.__doc__ = getattr(function, "__doc__", None)
    return call


_NO_FUNCTION = object()


def vectorize(pyfunc: Any = _NO_FUNCTION, **options: Any) -> Any:
    """``np.vectorize`` (also as a decorator with options), its results checked."""
    if pyfunc is _NO_FUNCTION:
        return lambda function: vectorize(function, **options)
    return checked(np.vectorize(pyfunc, **options), getattr(pyfunc, "__name__", "vectorized"))


class Ufunc:
    """A numpy ufunc for tool code: its calls and methods (``reduce``, ``outer``, ...) refuse object arrays."""

    __slots__ = ("_ufunc", "_call")

    def __init__(self, ufunc: np.ufunc) -> None:
        if not isinstance(ufunc, np.ufunc):
            refuse("ufunc wraps numpy's universal functions only")
        object.__setattr__(self, "_ufunc", ufunc)
        object.__setattr__(self, "_call", checked(ufunc))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name in ("__name__", "__qualname__", "__doc__"):
            return getattr(self._ufunc, name)
        return guarded_getattr(self._ufunc, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a ufunc is read-only")

    def __repr__(self) -> str:
        return repr(self._ufunc)


Ufunc.__name__ = Ufunc.__qualname__ = "ufunc"


class _ArrayTypeMeta(type):
    """``np.ndarray`` for tool code: ``isinstance``/``issubclass`` as the real class, no constructor."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        refuse(
            "numpy.ndarray(...) builds an array over any buffer; use np.array, np.zeros, np.empty or np.frombuffer"
        )

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, np.ndarray)

    def __subclasscheck__(cls, subclass: type) -> bool:
        return isinstance(subclass, type) and issubclass(subclass, np.ndarray)

    def __repr__(cls) -> str:
        return "<class 'numpy.ndarray'>"


class ArrayType(metaclass=_ArrayTypeMeta):
    """What tool code has as ``np.ndarray`` and ``type(array)``."""

    __slots__ = ()

    def __class_getitem__(cls, item: Any) -> Any:
        return types.GenericAlias(cls, item)


ArrayType.__name__ = ArrayType.__qualname__ = "ndarray"
ArrayType.__module__ = "numpy"


# --- attributes of numpy's objects ---

ARRAY_NAMES = frozenset(
    words(
        """
    T all any argmax argmin argpartition argsort astype byteswap choose clip compress conj conjugate
    copy cumprod cumsum diagonal dot dtype fill flags flat flatten imag item itemsize mT max mean min
    nbytes ndim nonzero partition prod put ravel real repeat reshape round searchsorted shape
    size sort squeeze std strides sum swapaxes take tobytes tolist trace transpose var view
    """
    )
)
OBJECT_ARRAY_NAMES = frozenset({"dtype", "shape", "ndim", "size", "tolist", "item"})
_PYTHON_SCALAR_NAMES = frozenset(
    name for kind in (int, float, complex, str, bytes) for name in dir(kind) if not name.startswith("_")
)
SCALAR_NAMES = (ARRAY_NAMES - {"put", "sort", "partition", "fill"}) | _PYTHON_SCALAR_NAMES
DTYPE_NAMES = frozenset(
    words(
        """
    alignment base byteorder char descr fields flags hasobject isalignedstruct isbuiltin isnative
    itemsize kind metadata name names ndim newbyteorder num shape str subdtype type
    """
    )
)
UFUNC_NAMES = frozenset(
    words("accumulate at identity nargs nin nout ntypes outer reduce reduceat signature types")
)
GENERATOR_NAMES = frozenset(
    name for name in dir(np.random.Generator) if not name.startswith("_") and name != "bit_generator"
)
FLAGS_NAMES = frozenset(
    words(
        """
    aligned behaved c_contiguous carray contiguous f_contiguous farray fnc forc fortran num owndata
    writeable writebackifcopy
    """
    )
)
FLATITER_NAMES = frozenset({"coords", "copy", "index"})
FINFO_NAMES = frozenset(
    words(
        """
    bits dtype eps epsneg iexp machep max maxexp min minexp negep nexp nmant precision resolution
    smallest_normal smallest_subnormal tiny kind
    """
    )
)
CLOSED_REASONS = {
    "tofile": "it writes a file",
    "dump": "it writes a pickle file",
    "dumps": "it pickles the array",
    "ctypes": "it hands out raw pointers",
    "data": "it hands out the raw buffer; use tobytes() or tolist()",
    "base": "it leads to the memory the array views",
    "getfield": "it reinterprets bytes at an offset; use view() or astype()",
    "setfield": "it reinterprets bytes at an offset; use view() or astype()",
    "bit_generator": "it leads to the generator's C interface (ctypes, cffi)",
    "resize": "with refcheck=False it frees memory other views still use; use np.resize(a, shape)",
}


def _method_results_checked(value: Any) -> Any:
    if callable(value) and not isinstance(value, type):
        return checked(value)
    return no_object_arrays(value)


def _numpy_names(names: frozenset[str], object_names: frozenset[str] | None = None) -> LibraryRule:
    def attribute(obj: Any, name: str, default: tuple[Any, ...]) -> Any:
        if name not in names:
            reason = CLOSED_REASONS.get(name, "it is not on toolpen's list of numpy's names")
            refuse(f"numpy: {name!r} of {_class_name(obj)} is not available in toolpen: {reason}")
        if object_names is not None and _holds_pointers(obj) and name not in object_names:
            refuse(OBJECT_ARRAYS + f" ({name!r} is not available on one)")
        return _method_results_checked(getattr(obj, name, *default))

    return LibraryRule(attribute)


def _class_name(obj: Any) -> str:
    view: Any = obj  # typeshed's super has no __self_class__
    kind = obj if isinstance(obj, type) else view.__self_class__ if isinstance(obj, super) else type(obj)
    return f"numpy.{type.__dict__['__name__'].__get__(kind)}"


_ARRAY = _numpy_names(ARRAY_NAMES, OBJECT_ARRAY_NAMES)
_SCALAR = _numpy_names(SCALAR_NAMES, OBJECT_ARRAY_NAMES)
_DTYPE = _numpy_names(DTYPE_NAMES)


def _dtype_attribute(dtype: Any, name: str, default: tuple[Any, ...]) -> Any:
    if (
        name == "type" and isinstance(dtype, np.dtype) and dtype.hasobject
    ):  # np.object_([...]) is an object array
        refuse(OBJECT_ARRAYS + " (the scalar type of an object dtype builds one)")
    return _DTYPE.attribute(dtype, name, default)


_RULES: dict[type, LibraryRule] = {
    np.dtype: LibraryRule(_dtype_attribute),
    np.ufunc: _numpy_names(UFUNC_NAMES),
    np.random.Generator: _numpy_names(GENERATOR_NAMES),
    type(np.empty(0).flags): _numpy_names(FLAGS_NAMES),
    np.flatiter: _numpy_names(FLATITER_NAMES),
    np.finfo: _numpy_names(FINFO_NAMES),
    np.iinfo: _numpy_names(FINFO_NAMES),
}
_NOTHING = _numpy_names(frozenset())


def _numpy_rule(cls: type) -> LibraryRule | None:
    """numpy's classes (and ctypes', which only numpy hands out): the allowlist of each."""
    module = str(type.__dict__["__module__"].__get__(cls))
    if module in ("ctypes", "_ctypes"):
        return _NOTHING
    if (module != "numpy" and not module.startswith("numpy.")) or issubclass(cls, BaseException):
        return None
    if issubclass(cls, np.ndarray):
        return _ARRAY
    if issubclass(cls, np.generic):
        return _SCALAR
    for base, rule in _RULES.items():
        if issubclass(cls, base):
            return rule
    if issubclass(cls, tuple):  # linalg's results
        fields = getattr(cls, "_fields", None)
        if isinstance(fields, tuple):
            return _numpy_names(frozenset(fields) | {"count", "index"})
    return _NOTHING


register_library_types(_numpy_rule)
TYPE_STAND_INS[np.ndarray] = ArrayType


def _pointers_in(value: Any) -> BaseException | None:
    return violation(OBJECT_ARRAYS) if _holds_pointers(value) else None


def _gate_buffers(armed: bool) -> None:
    """Arrays and void scalars whose memory holds object pointers export no buffer under the language wall."""
    if armed:
        bufferless.close((np.ndarray, np.void), _pointers_in)
    else:
        bufferless.reopen()


on_arming(_gate_buffers)


def _members(module: Any, names: Iterable[str]) -> dict[str, Any]:
    return {name: getattr(module, name) for name in names if hasattr(module, name)}


def members(name: str) -> dict[str, Any]:
    """The members of the view of ``name`` (numpy or its linalg, random or fft), submodules apart."""
    if name == "numpy.linalg":
        return {
            **{key: checked(value) for key, value in _members(np.linalg, LINALG).items()},
            "LinAlgError": np.linalg.LinAlgError,
        }
    if name == "numpy.fft":
        return {key: checked(value) for key, value in _members(np.fft, FFT).items()}
    if name == "numpy.random":
        return {"default_rng": checked(np.random.default_rng), "Generator": np.random.Generator}
    functions = {key: checked(value) for key, value in _members(np, _CHECKED_FUNCTIONS).items()}
    return {
        **functions,
        "vectorize": vectorize,
        **{key: Ufunc(value) for key, value in _members(np, _UFUNCS).items()},
        **_members(np, _CLASSES),
        **_members(np, _CONSTANTS),
        "ndarray": ArrayType,
        "ufunc": Ufunc,
    }


def left_out(module: str, member: str) -> str | None:
    """Why the view of ``module`` leaves out ``member``, when it says more than the default."""
    if module == "numpy.random":
        return RANDOM_LEFT_OUT
    if module == "numpy":
        return LEFT_OUT.get(member) or None
    return None
