"""liebatch: Lie group integrators for large ensembles of mechanical systems, from Python.

The models, methods, checks and commands are the command line's (``liebatch list`` shows the same
lists); results keep its HDF5 layout, member index last::

    import numpy as np, liebatch as lb
    top = lb.model("heavy_top", preset="bruls_cardona", mass=np.linspace(10, 20, 1000))
    r = lb.solve(top, top.initial, t=(0, 1), method="rkmk4", h=1e-3, samples=11)
    r.final.y, r.final.status_names(), r.samples.obs    # (dim, members), ..., (samples, nobs, members)

See docs/python.md.
"""

import contextlib
import hashlib
import json
import operator
import os
import re
import signal
import tempfile
import threading

import numpy as np

from . import _liebatch
from ._liebatch import CompileError, __version__

__all__ = [
    "Model", "Output", "Source", "CompileError", "merge", "compile_model", "sympy_model", "Hyperplane", "Stroboscopic", "model", "models", "methods", "solve", "run_config", "load",
    "values", "linspace", "logspace", "uniform", "normal", "lognormal", "gpu_unavailable", "statistics",
]

# --- Errors: the command line's messages name a config's JSON path; a Python call names its argument.
_ARGUMENTS = [
    (r"/model/parameters", "parameters"),
    (r"/model/parameters/([^:]*)", r"parameter \1"),
    (r"/model/preset", "preset"),
    (r"/model/source", "source"),
    (r"/model/type", "type"),
    (r"/model/methods(/\d+)?", "methods"),
    (r"/model/gpu", "gpu"),
    (r"/model/name", "model name"),
    (r"/model", "model"),
    (r"/method", "method"),
    (r"/time/t[01]", "t"),
    (r"/time", "t"),
    (r"/step/h0", "h0"),
    (r"/step/h_min", "h_min"),
    (r"/step/h", "h"),
    (r"/step/(atol|rtol|max_steps)", r"\1"),
    (r"/step/adaptive", "atol/rtol (adaptive steps)"),
    (r"/outputs/samples", "samples"),
    (r"/section/max_hits", "max_hits"),
    (r"/section(/[^:]*)?", "section"),
    (r"/parameter_sampler(/[^:]*)?", "sampler"),
    (r"/initial(/[^:]*)?", "y0"),
]


def _named(error):
    """The exception with the JSON path of its message replaced by the argument's name."""
    text = str(error)
    m = re.match(r"config (/\S*?): (.*)$", text, re.S)
    if m:
        for pattern, name in _ARGUMENTS:
            if re.fullmatch(pattern, m.group(1)):
                return type(error)(re.sub(pattern, name, m.group(1), count=1) + ": " + m.group(2))
    return error


def _finite(name, v):
    """v as a float, or a ValueError naming the argument (JSON, the configs' language, has no inf or NaN)."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a number, got {v!r}") from None
    if not np.isfinite(x):
        raise ValueError(f"{name}: expected a finite number, got {v!r}")
    return x


def _integer(name, v, lo, hi):
    """v as an int in [lo, hi], or an error naming the argument (no float is truncated into one)."""
    try:
        x = operator.index(v)
    except TypeError:
        raise TypeError(f"{name}: expected an integer, got {v!r}") from None
    if not lo <= x <= hi:
        raise ValueError(f"{name}: expected an integer in [{lo}, {hi}], got {x}")
    return x


def _choice(name, v, options):
    """v, one of `options` (the command line's choices), or a ValueError naming the argument."""
    if not isinstance(v, str) or v not in options:
        raise ValueError(f"{name}: expected one of {', '.join(options)}, got {v!r}")
    return v


_DEVICES = ("auto", "cpu", "gpu")
_MAX_THREADS = 4096  # the command line's --threads
_MAX_MEMBERS = 2**40


@contextlib.contextmanager
def _temporaries_removed_on_signal():
    """SIGTERM and SIGHUP, where their action is the default (the process ends at once, leaving
    whatever it was writing), raise inside the block instead, so that its cleanup removes its
    temporaries as the command line's does; then the signal ends the process as it would have."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = [s for s in (signal.SIGTERM, signal.SIGHUP) if signal.getsignal(s) == signal.SIG_DFL]

    def stop(signum, frame):
        raise _Signalled(signum)

    for s in caught:
        signal.signal(s, stop)
    try:
        yield
    except _Signalled as e:
        for s in caught:
            signal.signal(s, signal.SIG_DFL)
        caught = []
        os.kill(os.getpid(), e.signum)
        raise
    finally:
        for s in caught:
            signal.signal(s, signal.SIG_DFL)


class _Signalled(BaseException):
    def __init__(self, signum):
        super().__init__(f"signal {signum}")
        self.signum = signum


def _call(f, *args):
    try:
        return f(*args)
    except (ValueError, OSError) as e:
        raise _named(e) from None


# --- Per-member parameters: a number, or one of these (the config's forms).
def values(xs):
    """A sweep over the listed values."""
    a = np.atleast_1d(_float64("values", xs))
    if a.ndim != 1:
        raise ValueError(f"values: expected a list of numbers (1-D), got shape {a.shape}")
    return {"values": [_finite("values", x) for x in a]}


def linspace(a, b, n):
    """A sweep over n points from a to b, as numpy.linspace."""
    return {"linspace": [_finite("linspace a", a), _finite("linspace b", b), _integer("linspace n", n, -2**63, 2**63)]}


def logspace(a, b, n):
    """A sweep over n points from 10**a to 10**b, as numpy.logspace."""
    return {"logspace": [_finite("logspace a", a), _finite("logspace b", b), _integer("logspace n", n, -2**63, 2**63)]}


def uniform(a, b):
    """Drawn per member, uniform on [a, b]."""
    return {"uniform": [_finite("uniform a", a), _finite("uniform b", b)]}


def normal(mean, sd):
    """Drawn per member, normal."""
    return {"normal": [_finite("normal mean", mean), _finite("normal sd", sd)]}


def lognormal(mean, sd):
    """Drawn per member: exp of a normal with this mean and standard deviation."""
    return {"lognormal": [_finite("lognormal mean", mean), _finite("lognormal sd", sd)]}


def _plain(x):
    """numpy's numbers and arrays as JSON takes them (json.dumps's default)."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"expected numbers, strings, lists and dicts (a config's JSON), got {type(x).__name__} {x!r}")


def _nonfinite(x, path=""):
    """The JSON path of x's first NaN or infinity, or None."""
    if isinstance(x, dict):
        items = x.items()
    elif isinstance(x, (list, tuple, np.ndarray)):
        items = enumerate(x)
    else:
        return path if isinstance(x, (float, np.floating)) and not np.isfinite(x) else None
    return next((p for k, v in items if (p := _nonfinite(v, f"{path}/{k}")) is not None), None)


def _json(x, at=""):
    """x as JSON text; a NaN or infinity (which JSON cannot hold) is refused before it gets there,
    naming where it is (as the config's path, x at `at` in it, which _named turns into the
    argument's name)."""
    try:
        return json.dumps(x, allow_nan=False, default=_plain)
    except ValueError:
        where = _nonfinite(x, at)
        raise _named(ValueError(f"config {where}: expected a finite number (JSON has no NaN or infinity)" if where else
                                "expected finite numbers (JSON has no NaN or infinity)")) from None


def _progress(p):
    """progress as the binding takes it: None, True/False (the bar), or a callable."""
    if p is None or isinstance(p, (bool, np.bool_)):
        return bool(p) if p is not None else None
    if not callable(p):
        raise TypeError(f"progress: expected True, False, None or a callable taking the fraction done, got {p!r}")
    return p


def _parameter(name, v):
    """A keyword argument as the config's JSON: numbers, lists of them, variations; an array is a sweep."""
    if isinstance(v, dict):
        return v
    if isinstance(v, (list, tuple)):
        return [_parameter(name, x) for x in v]
    if isinstance(v, np.ndarray) and v.ndim == 1:
        return values(v)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"parameter {name}: expected a number, a list of numbers, an array (a sweep) or a variation "
                        f"(lb.uniform, lb.linspace, ...), got {v!r}")
    return int(v) if isinstance(v, (int, np.integer)) else _finite(f"parameter {name}", v)


def _read(path):
    with open(path) as f:
        return f.read()


class Source:
    """A user's model: the class template `type` of a C++ header, compiled for `methods`, with its
    GPU kernels where `gpu` (None: where this liebatch has a GPU path) (lb.compile_model;
    docs/user-models.md). lb.model(source, **parameters) makes a Model of it."""

    def __init__(self, path, type, methods, gpu=None):
        self.path, self.type, self.methods, self.gpu = path, type, list(methods), gpu

    def __repr__(self):
        return f"liebatch.Source({self.type} from {self.path!r} for {', '.join(self.methods)})"


def compile_model(cpp=None, type=None, methods=("rkmk4", "rkmk54"), path=None, gpu=None):
    """Compiles a model written as a C++ header, its text `cpp` or its file `path`, in which `type`
    is the model's class template (the Model contract: space, f, parameters(), cast; see
    docs/user-models.md), for `methods` (and their GPU kernels with nvcc where `gpu`; by default
    where this liebatch has a GPU path), with the command line's own compilers and flags, into the
    user's cache: a later call with the same text loads it (about a second). Returns a Source for
    lb.model. A compile error raises lb.CompileError with the compiler's text, at the lines of
    the header."""
    if (cpp is None) == (path is None):
        raise ValueError("cpp, path: give the header's text (cpp) or its file (path), one of them")
    if not isinstance(type, str):
        raise TypeError(f"type: expected the name of the model's class template, got {type!r}")
    methods = [methods] if isinstance(methods, str) else list(methods)
    if gpu is not None and not isinstance(gpu, bool):
        raise TypeError(f"gpu: expected True, False or None (where this liebatch has a GPU path), got {gpu!r}")
    if cpp is not None:
        if not isinstance(cpp, str):
            raise TypeError(f"cpp: expected the header's text, got {cpp.__class__.__name__}")
        # The text into the cache, under its hash: the compiler's messages then name a file whose
        # lines are the text's lines.
        folder = os.path.join(_liebatch.plugin_cache(), "sources")
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            raise OSError(f"cpp: the cache directory {folder!r} is not this user's alone (LIEBATCH_CACHE_DIR)")
        path = os.path.join(folder, hashlib.sha256(cpp.encode()).hexdigest()[:32] + ".hpp")
        if not os.path.isfile(path) or _read(path) != cpp:
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".hpp", dir=folder)
            try:
                with os.fdopen(fd, "w") as f:
                    f.write(cpp)
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
    source = Source(os.path.abspath(os.fspath(path)), type, methods, gpu)
    Model(source)  # compiled now, or loaded from the cache: its errors are raised here
    return source


# Spaces a sympy model may live on: (C++ space, numbers in a state, numbers in f).
_SYMPY_SPACES = {
    "so3*": ("lb::CoadjointSO3<T>", "liebatch/coadjoint.hpp", 3, 3),
    "se3*": ("lb::CoadjointSE3<T>", "liebatch/coadjoint.hpp", 6, 6),
    "S2": ("lb::S2<T>", "liebatch/sphere.hpp", 3, 3),
    "TS2": ("lb::TS2<T>", "liebatch/tangent_sphere.hpp", 6, 6),
}
_NAME = re.compile(r"[A-Za-z0-9_ .|()*+/^-]{1,64}")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
# What the generated struct's name may not be: C++'s keywords, and the names the struct itself uses.
_RESERVED = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete do
double dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable namespace new
noexcept not not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires return short signed
sizeof static static_assert static_cast struct switch template this thread_local throw true try typedef typeid typename union
unsigned using virtual void volatile wchar_t while xor xor_eq
T U f t r y lb std space cast parameters observables state_names observable_names""".split())
# The words printed C++ may hold besides our symbols (s0, p0, c0, t): sympy's C++ functions and constants.
_CPP_WORDS = set("""T std numbers pi_v e_v numeric_limits infinity max min true false abs acos acosh asin asinh atan atan2 atanh
beta cbrt ceil cos cosh erf erfc exp exp2 expint expm1 fabs floor fma fmax fmin hypot lgamma log log10 log1p log2
pow riemann_zeta sin sinh sqrt tan tanh tgamma""".split())
_WORD = re.compile(r"(?<![0-9.])[A-Za-z_][A-Za-z0-9_]*")
# Assumptions a symbol may carry: none, real, or (a parameter) positive. Others let sympy simplify
# for values that no check holds it to (sqrt(k**2) is k for a nonnegative k).


def sympy_model(space, state, f, parameters=None, observables=None, time=None, name="SympyModel",
                methods=("rkmk4", "rkmk54"), gpu=None):
    """A model from sympy expressions, compiled like a header of one's own (lb.compile_model):
    `space` one of so3*, se3*, S2, TS2; `state` its symbols (their names name the state's numbers);
    `f` the algebra element that moves the state (a list of expressions in the state, the
    parameters and `time`); `parameters` {symbol: default}; `observables` {name: expression}. The
    expressions are printed as C++ with common subexpressions eliminated; only sympy's own
    functions may appear in them. Returns a Source for lb.model."""
    import sympy
    from sympy.core.function import AppliedUndef
    from sympy.printing.cxx import CXX17CodePrinter

    def literal(n):  # an integer in T: past 2**53 a long double literal (a long long one wraps past 2**64)
        return f"T({n})" if abs(n) < 2**53 else f"T({n}.0L)"

    class Printer(CXX17CodePrinter):
        """Constants in the model's scalar T: a long double model gets them to its precision, and
        a float model computes in float (a double literal makes std::max(float, double) fail)."""

        def _print_Integer(self, e):
            return literal(int(e))

        def _print_Rational(self, e):
            return f"({literal(e.p)} / {literal(e.q)})"

        def _print_Pow(self, e):
            b = self._print(e.base)
            if e.exp == -1:
                return f"(T(1) / ({b}))"
            if e.exp == sympy.S.Half:
                return f"std::sqrt({b})"
            if e.exp == -sympy.S.Half:
                return f"(T(1) / std::sqrt({b}))"
            return f"std::pow({b}, {self._print(e.exp)})"

        def _print_Infinity(self, e):
            return "std::numeric_limits<T>::infinity()"

        def _print_NegativeInfinity(self, e):
            return "(-std::numeric_limits<T>::infinity())"

        def _print_Float(self, e):
            return f"T({float(e)!r})" if abs(float(e)) != float("inf") else super()._print_Float(e)

        def _print_Pi(self, e):
            return "std::numbers::pi_v<T>"

        def _print_Exp1(self, e):
            return "std::numbers::e_v<T>"

    def cxxcode(e):
        # Only our symbols, sympy's C++ functions and numbers reach the header: a function the
        # printer does not know (printed as its class's name, which a user's class makes any text)
        # or a symbol bound inside a Sum or an Integral is refused, never compiled.
        code = Printer().doprint(e)
        words = {w for w in _WORD.findall(code) if w not in _CPP_WORDS and not re.fullmatch(r"[spc]\d+|t", w)}
        words -= {"Not", "supported", "in", "C"}  # the printer's own note on what it cannot print
        if words or re.search(r"[;{}\"'#\\`$@]|/\*|//", code):
            raise ValueError(f"f, observables: {e} prints as C++ that liebatch does not compile "
                             f"({', '.join(sorted(words)) or 'not an expression'}: a function or form sympy cannot print to C++)")
        return code
    if space not in _SYMPY_SPACES:
        raise ValueError(f"space: expected one of {', '.join(_SYMPY_SPACES)}, got {space!r}")
    cpp_space, header, dim, adim = _SYMPY_SPACES[space]
    if not _KEY.fullmatch(name or "") or name in _RESERVED or re.fullmatch(r"[spc]\d+", name):
        raise ValueError(f"name: expected a C++ name (letters, digits, _) that is no keyword nor a name the model's code uses, got {name!r}")
    state, f = list(state), list(f)
    if len(state) != dim or not all(isinstance(x, sympy.Symbol) for x in state):
        raise ValueError(f"state: expected {dim} sympy symbols for {space}, got {state!r}")
    if len(f) != adim:
        raise ValueError(f"f: expected {adim} expressions (the algebra of {space}), got {len(f)}")
    parameters = dict(parameters or {})
    observables = dict(observables or {})
    for p, v in parameters.items():
        if not isinstance(p, sympy.Symbol) or not _KEY.fullmatch(p.name):
            raise ValueError(f"parameters: expected sympy symbols named as C++ names, got {p!r}")
        _finite(f"parameter {p}", v)
    for k in [*observables, *(x.name for x in state)]:
        if not isinstance(k, str) or not _NAME.fullmatch(k):
            raise ValueError(f"names: expected up to 64 letters, digits or _ .|()*+/^-, got {k!r}")
    declared = [*state, *parameters, *([time] if time is not None else [])]
    if time is not None and not isinstance(time, sympy.Symbol):
        raise ValueError(f"time: expected a sympy symbol, got {time!r}")
    names = [x.name for x in declared]
    if len(set(names)) != len(names):
        raise ValueError(f"state, parameters, time: a name appears twice ({', '.join(sorted({n for n in names if names.count(n) > 1}))})")
    plain, real, positive = (sympy.Symbol("x", **a).assumptions0 for a in ({}, {"real": True}, {"positive": True}))
    for x in declared:
        if x.assumptions0 not in ((plain, real, positive) if x in parameters else (plain, real)):
            raise ValueError(f"{x.name}: a symbol with assumptions {sorted(k for k, v in x.assumptions0.items() if v)} lets sympy simplify "
                             f"for values nothing holds it to; declare it plain, real=True{' or positive=True' if x in parameters else ''}")
    def expression(e, where):
        # Never a string: sympify parses one with eval, so a string from a config or a form would
        # run as Python. strict: numbers and sympy's own objects alone.
        if isinstance(e, (str, bytes)):
            raise TypeError(f"{where}: expected a sympy expression or a number, got the string {e!r} (strings are not parsed)")
        try:
            return sympy.sympify(e, strict=True)
        except sympy.SympifyError:
            raise TypeError(f"{where}: expected a sympy expression or a number, got {type(e).__name__}") from None

    f = [expression(e, f"f[{i}]") for i, e in enumerate(f)]
    observables = {k: expression(e, f"observables[{k!r}]") for k, e in observables.items()}
    for k, e in observables.items():
        if time is not None and time in e.free_symbols:
            raise ValueError(f"observables: {k!r} depends on time; an observable is a function of the state")
    # Every symbol becomes one of ours (s0, p0, t), so no name of the user's reaches the code.
    ours = {x: sympy.Symbol(f"s{i}") for i, x in enumerate(state)}
    ours.update({p: sympy.Symbol(f"p{i}") for i, p in enumerate(parameters)})
    if time is not None:
        ours[time] = sympy.Symbol("t")
    exprs = [*f, *observables.values()]
    for e in exprs:
        if e.atoms(AppliedUndef):
            raise ValueError(f"f, observables: {e} uses a function sympy does not know")
        if e.has(sympy.zoo, sympy.nan):
            raise ValueError(f"f, observables: {e} holds an undefined value (zoo or nan)")
        unknown = e.atoms(sympy.Symbol) - set(ours)  # bound ones too (a Sum's index): never printed
        if unknown:
            raise ValueError(f"f, observables: {e} has symbols that are neither state, parameters nor time: {unknown}")
    exprs = [e.xreplace(ours) for e in exprs]
    common, reduced = sympy.cse(exprs, symbols=sympy.numbered_symbols("c"))

    def body(lines, results, out, kind):
        code = [f"    const T s{i} = y[{i}];" for i in range(dim)]
        code += [f"    const T {c} = {cxxcode(e)};" for c, e in lines]
        code += [f"    {kind} r{{}};"] + [f"    r[{k}] = {cxxcode(e)};" for k, e in enumerate(results)]
        return "\n".join(code + ["    return r;"])

    nf, nobs = len(f), len(observables)
    uses = lambda e: {c for c in e.free_symbols if c.name.startswith("c")}
    def needed(results):  # the common subexpressions these results use, in order
        want, keep = set().union(*(uses(e) for e in results)) if results else set(), []
        for c, e in reversed(common):
            if c in want:
                keep.append((c, e))
                want |= uses(e)
        return keep[::-1]
    members = "\n".join(f"  T p{i};" for i in range(len(parameters)))
    table = ",\n".join(f'      lb::parameter<&{name}::p{i}>("{p.name}", {float(v)!r}, "{p.name}"{", lb::positive" if p.is_positive else ""})'
                       for i, (p, v) in enumerate(parameters.items()))
    casts = ", ".join(f"U(p{i})" for i in range(len(parameters)))
    quote = lambda xs: ", ".join(f'"{x}"' for x in xs)
    text = f"""// Generated by lb.sympy_model from sympy expressions (common subexpressions eliminated).
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include <{header}>
#include <liebatch/model_parameters.hpp>

template <class T> struct {name} {{
  using space = {cpp_space};
{members}
  static constexpr auto parameters() {{
    return lb::parameters(
{table});
  }}
  LB_HD typename space::algebra::vec f(T t, const typename space::point& y) const {{
    (void)t;
{body(needed(reduced[:nf]), reduced[:nf], None, "typename space::algebra::vec")}
  }}
  static std::vector<std::string> state_names() {{ return {{{quote(x.name for x in state)}}}; }}
"""
    if nobs:
        text += f"""  LB_HD lb::Vec<T, {nobs}> observables(const typename space::point& y) const {{
{body(needed(reduced[nf:]), reduced[nf:], None, f"lb::Vec<T, {nobs}>")}
  }}
  static std::vector<std::string> observable_names() {{ return {{{quote(observables)}}}; }}
"""
    text += f"  template <class U> {name}<U> cast() const {{ return {{{casts}}}; }}\n}};\n"
    return compile_model(cpp=text, type=name, methods=methods, gpu=gpu)


def _model_of_spec(spec, sampler):
    """The Model of a spec and sampler Model.__init__ made (unpickling)."""
    m = Model.__new__(Model)
    m.spec, m.sampler = spec, sampler
    m._m = _call(_liebatch.Model, _json(spec, "/model"), _json(sampler, "/parameter_sampler") if sampler else "")
    return m


class Model:
    """A model of the command line with its parameters: fixed, swept or drawn per member."""

    def __init__(self, name, preset=None, sampler=None, methods=None, **parameters):
        if isinstance(name, Source):
            if methods is not None:
                raise TypeError("methods: a user's model was compiled for its own (lb.compile_model(methods=...))")
            self.spec = {"source": name.path, "type": name.type, "methods": name.methods}
            if name.gpu is not None:
                self.spec["gpu"] = name.gpu
        else:
            self.spec = {"name": name}
            if methods is not None:  # a pendulum chain of a length this build lacks is compiled for them
                self.spec["methods"] = list(methods)
        if preset is not None:
            self.spec["preset"] = preset
        if parameters:
            self.spec["parameters"] = {k: _parameter(k, v) for k, v in parameters.items()}
        self.sampler = _sampler(sampler)
        try:
            self._m = _call(_liebatch.Model, _json(self.spec, "/model"), _json(self.sampler, "/parameter_sampler") if self.sampler else "")
        except ValueError as e:  # a vector parameter given as an array: read as a sweep of one number
            key = next((k for k, v in parameters.items() if isinstance(v, np.ndarray) and f"parameter {k}: expected an array of" in str(e)), None)
            if key is None:
                raise
            raise ValueError(f"{e} (a 1-D array is a sweep of a single number; give a list for parameter {key}'s entries, "
                             "each a number or a sweep)") from None

    def __reduce__(self):
        """Pickled (multiprocessing, Dask) and copied as what it was made from: its JSON spec."""
        return _model_of_spec, (self.spec, self.sampler)

    name = property(lambda self: self._m.name)
    dim = property(lambda self: self._m.dim, doc="numbers per state")
    multipliers = property(lambda self: self._m.multipliers, doc="a constrained system's multipliers, at the state's end")
    state_names = property(lambda self: self._m.state_names)
    observable_names = property(lambda self: self._m.observable_names)
    grid = property(lambda self: self._m.grid, doc="points of the parameter sweeps' grid (1: none)")

    @property
    def initial(self):
        """The preset's state (a float64 array), or None."""
        v = self._m.preset_initial
        return np.array(v) if v else None

    def parameters(self, members=None):
        """Each member's values of the varied parameters: {key: (members,) or (size, members)}."""
        return _call(self._m.parameters, self.grid if members is None else _integer("members", members, 1, 2**62))

    def _rows(self, y, f, *args):
        """f over the rows of y (and of args), for a state (dim,) or states (n, dim)."""
        one = np.ndim(y) == 1
        rows = [np.atleast_2d(_float64(name, x)) for name, x in zip(("y", "xi"), (y, *args))]
        r = f(*rows)
        return r if not one else tuple(x[0] for x in r) if isinstance(r, tuple) else r[0]

    def defect(self, y):
        """Each state's distance from the model's manifold (e.g. | |Gamma| - 1 |); y: (dim,) or (n, dim)."""
        return self._rows(y, self._m.defect)

    def project(self, y):
        """The nearest states on the manifold."""
        return self._rows(y, self._m.project)

    def perturb(self, y, xi):
        """exp(xi)·y by the group's action, xi: (algebra_dim,) or (n, algebra_dim): the samplers' perturbation."""
        return self._rows(y, self._m.perturb, xi)

    def on_energy_level(self, y, energy):
        """(states, reachable): the velocities rescaled to the energy level; reachable is False where the
        configuration's potential lies above it (the state is then left as it was)."""
        return self._rows(y, lambda a: self._m.on_energy_level(a, _finite("energy", energy)))

    def refusal(self, method):
        """Why `method` does not serve this model ("" when it does)."""
        return self._m.refusal(method)

    def __repr__(self):
        return f"liebatch.Model({json.dumps(self.spec)})"


def model(name, preset=None, sampler=None, methods=None, **parameters):
    """A model by name (lb.models()) or a user's (an lb.Source, from lb.compile_model), with a preset and parameters; a parameter may be a sweep (an
    array, lb.linspace, ...) or a distribution (lb.normal, ...), drawn by `sampler` ({"kind": "box" |
    "sobol", "seed": n}). `methods`: for a pendulum_chain of a length this build does not hold, the
    methods to compile it for, once (default rkmk4 and rkmk54)."""
    return Model(name, preset=preset, sampler=sampler, methods=methods, **parameters)


def _sampler(s):
    if s is None:
        return None
    if not isinstance(s, dict):
        raise TypeError(f"sampler: expected a dict such as {{'kind': 'box', 'seed': 3}}, got {s!r}")
    return dict(s)


def models():
    """Every model: name, summary, state, component and observable names, parameters, presets."""
    return _liebatch.models()


def methods():
    """Every method: name, order, embedded order, stages, description, models served, GPU kernels."""
    return _liebatch.methods()


def gpu_unavailable():
    """Why the GPU cannot run here ("" when it can)."""
    return _liebatch.gpu_unavailable()


# --- Sections
class Hyperplane:
    """Hits of y[component] = value crossed upward, downward or both; `where=("Pi_z", ">", 0)` keeps
    only hits where another component is above (or below) a value."""

    def __init__(self, component, value=0.0, direction="both", where=None):
        self.json = {"type": "hyperplane", "component": component, "value": _finite("value", value), "direction": direction}
        if where is not None:
            if not (isinstance(where, (tuple, list)) and len(where) == 3 and where[1] in ("<", ">")):
                raise ValueError(f"section where: expected (component, '<' or '>', value), got {where!r}")
            key = "less_than" if where[1] == "<" else "greater_than"
            self.json["condition"] = {"component": where[0], key: _finite("where value", where[2])}


class Stroboscopic:
    """The state at t0 + k·period, k any whole number (t0, the run's by default, is the phase), inside
    the run's span (t0, t1]."""

    def __init__(self, period, t0=None):
        self.json = {"type": "stroboscopic", "period": _finite("period", period)}
        if t0 is not None:
            self.json["t0"] = _finite("t0", t0)


# --- Results
class _Group:
    def __init__(self, out, prefix):
        self._out, self._prefix = out, prefix

    def __getattr__(self, name):
        key = self._prefix + ("observables" if name == "obs" else name)
        if key in self._out.arrays:
            return self._out.arrays[key]
        raise AttributeError(f"{self._prefix}{name}: not in this output (it has {', '.join(self.keys())})")

    def keys(self):
        return [k[len(self._prefix):] for k in self._out.arrays if k.startswith(self._prefix)]

    def status_names(self):
        """Each member's status in words (final/status)."""
        names = self._out.arrays["names/status"]
        return [names[s] for s in self._out.arrays[self._prefix + "status"]]


class Output:
    """A run's output in the command line's HDF5 layout: `arrays` by path ("final/y", member index
    last), `attrs` by path ("" : the root); groups as attributes (out.final.y, out.samples.obs,
    out.hits.member)."""

    def __init__(self, arrays, attrs, exit_status=0):
        self.arrays, self.attrs, self.exit_status = dict(arrays), dict(attrs), exit_status

    def __getitem__(self, path):
        return self.arrays[path]

    def __contains__(self, path):
        return path in self.arrays

    def keys(self):
        return self.arrays.keys()

    def __getattr__(self, name):
        if name.startswith("_") or name in ("arrays", "attrs", "exit_status"):
            raise AttributeError(name)
        prefix = name + "/"
        if any(k.startswith(prefix) for k in self.arrays):
            return _Group(self, prefix)
        raise AttributeError(f"{name}: no such group in this output")

    def __repr__(self):
        root = self.attrs.get("", {})
        return f"<liebatch.Output {root.get('command', '?')} {root.get('model', '?')} {root.get('method', '?')}: {len(self.arrays)} arrays>"

    def save(self, path, force=False):
        """Writes the output as `liebatch` writes it (lb.load reads it back). An existing file is
        replaced only if liebatch wrote it, or with force=True; never a directory or a link. The file
        appears complete or not at all (written beside it, then renamed; SIGTERM or SIGHUP meanwhile
        removes it first)."""
        path = os.fspath(path)
        if not path.endswith(".h5"):
            raise ValueError(f"path: expected a file name ending in .h5, got {path!r}")
        if os.path.islink(path) or os.path.isdir(path):
            raise FileExistsError(f"path: {path!r} is a link or a directory; not replaced")
        if os.path.exists(path):
            # The command line's rules: the mode bits (root may write whatever they say), then who wrote it.
            if not os.path.isfile(path) or not os.stat(path).st_mode & 0o222 or not os.access(path, os.W_OK):
                raise FileExistsError(f"path: {path!r} is read-only or not a regular file; not replaced")
            if not force and not _written_by_liebatch(path):
                raise FileExistsError(f"path: {path!r} exists and liebatch did not write it (force=True replaces it)")
        with _temporaries_removed_on_signal():
            self._write(path)

    def _write(self, path):
        """save's file, written beside `path` and renamed over it."""
        import h5py
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".h5", dir=os.path.dirname(os.path.abspath(path)))
        os.close(fd)
        mask = os.umask(0)
        os.umask(mask)
        try:
            os.chmod(tmp, 0o666 & ~mask)  # as a file the command line writes (mkstemp makes it 0600)
            with h5py.File(tmp, "w") as f:
                for key, a in self.arrays.items():
                    if isinstance(a, list):
                        f.create_dataset(key, data=np.array(a, dtype=object), dtype=h5py.string_dtype())
                    else:
                        f.create_dataset(key, data=a)
                for where, attrs in self.attrs.items():
                    target = f[where] if where else f
                    for name, v in attrs.items():
                        target.attrs[name] = v
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise


def _written_by_liebatch(path):
    import h5py
    try:
        with h5py.File(path, "r") as f:
            return "liebatch_version" in f.attrs
    except OSError:
        return False


def load(path):
    """An output file of `liebatch` (or Output.save) as an Output."""
    import h5py
    arrays, attrs = {}, {}

    def text(v):
        return v.decode() if isinstance(v, bytes) else v

    def attributes(obj):
        return {k: (text(v) if isinstance(v, (bytes, str)) else float(v)) for k, v in obj.attrs.items()}

    with h5py.File(os.fspath(path), "r") as f:
        attrs[""] = attributes(f)

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                if obj.dtype.kind in ("S", "O", "U"):
                    arrays[name] = [text(s) for s in obj[()]]
                else:
                    arrays[name] = obj[()]
            if obj.attrs:
                attrs[name] = attributes(obj)
        f.visititems(visit)
    return Output(arrays, attrs)


# --- Running
_FLOAT_KEYS = ("initial/y", "final/y", "final/t", "samples/t", "samples/y", "samples/observables")


def _float64(name, x):
    """x as a C-ordered float64 array, or an error naming the argument: a TypeError where it holds
    no numbers or a number that float64 does not hold exactly (a long double's last digits, an
    integer beyond 2**53: never rounded silently), a ValueError where it is ragged."""
    try:
        a = np.asarray(x)
    except ValueError as e:  # a ragged list
        raise ValueError(f"{name}: expected an array of numbers with rows of one length ({e})") from None
    k = a.dtype.kind
    if k not in "fiu" or a.dtype.itemsize < (4 if k == "f" else 1):
        raise TypeError(f"{name}: expected an array of float64 or float32 numbers, got dtype {a.dtype}")
    b = np.asarray(a, dtype=np.float64, order="C")
    if k == "f" and a.dtype.itemsize > 8:
        inexact = ~((b == a) | (np.isnan(a) & np.isnan(b)))
    elif k in "iu" and a.dtype.itemsize > 4:
        inexact = (a > 2**53) | (a < -2**53) if k == "i" else a > 2**53
    else:
        return b
    if inexact.any():
        at = np.argwhere(inexact)[0]
        raise TypeError(f"{name}[{', '.join(map(str, at))}] is {a[tuple(at)]!r}, which float64 does not hold exactly "
                        f"(dtype {a.dtype}); convert it first if rounding is meant")
    return b


def _y0(y0, model):
    """(states, one, single): y0 as float64 (members × dim, or one state for every point of the
    parameter grid, which the binding repeats after its memory check), and whether it was float32
    (in any byte order: the run is then in float)."""
    a = _float64("y0", y0)
    given = np.asarray(y0).dtype
    single = given.kind == "f" and given.itemsize == 4
    shape = a.shape
    dims = (model.dim,) if not model.multipliers else (model.dim, model.dim - model.multipliers)
    one = a.ndim == 1 and a.shape[0] in dims
    if one:
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] not in dims:
        without = f" or (members, {dims[1]}) without the multipliers" if len(dims) > 1 else ""
        raise ValueError(f"y0: expected an array of shape (members, {model.dim}){without}, got shape {shape}")
    if len(a) == 0:
        raise ValueError(f"y0: no members (shape {a.shape})")
    bad = np.argwhere(~np.isfinite(a))
    if len(bad):
        raise ValueError(f"y0[{bad[0][0]}, {bad[0][1]}] is {a[tuple(bad[0])]}; expected finite numbers")
    return a, one, single


def solve(model, y0, t=(0.0, 1.0), method="rkmk4", h=None, atol=None, rtol=None, h0=None, h_min=None, max_steps=None,
          samples=None, section=None, max_hits=64, device="auto", threads=0, simd=True, normalize=False, tolerance=None,
          progress=None):
    """Integrates the members y0 (members × dim, float64; float32 runs in float) of `model` over t
    = (t0, t1) with `method`: fixed steps h, or adaptive ones with atol/rtol (a method with an
    embedded pair; h0 the first step, h_min the floor, by default 1e-12 of the span). `samples` states and observables at equally spaced times (t0 and t1 included;
    default 2, or 0 with a section, as a config's `outputs/samples` for run and poincare);
    a `section` (lb.Hyperplane, lb.Stroboscopic) records its hits, at most `max_hits` per member
    and chunk (20 chunks without samples, one per 64 samples). As `liebatch run` (`poincare` with a section) of the same config, bitwise: the same
    code runs. Returns an Output; float64 arrays own the engine's results (no copy), float runs
    give float32 (one copy, exact). Each row of y0 must lie within `tolerance` of the model's manifold
    (default 1e-10, 1e-6 for float32 rows), or is projected onto it with normalize=True. Ctrl-C
    stops the run (KeyboardInterrupt)."""
    if not isinstance(model, Model):
        raise TypeError(f"model: expected a liebatch.Model (lb.model(...)), got {type(model).__name__}")
    a, one, single = _y0(y0, model)
    if tolerance is None:  # the config's default; float32 states are rounded to float first
        tolerance = 1e-6 if single else 1e-10
    if not _finite("tolerance", tolerance) > 0:  # as a config's "tolerance"
        raise ValueError(f"tolerance: expected a number > 0, got {tolerance!r}")
    _choice("device", device, _DEVICES)
    if single and section is not None:
        raise ValueError("y0: float32 runs take no section (sections are located in double)")
    if not (isinstance(t, (tuple, list, np.ndarray)) and len(t) == 2):
        raise ValueError(f"t: expected (t0, t1), got {t!r}")
    t0, t1 = (_finite("t", x) for x in t)
    adaptive = atol is not None or rtol is not None
    step = {"adaptive": adaptive}
    if adaptive:
        if h is not None:
            raise ValueError("h: fixed steps take no atol/rtol; give h, or atol/rtol (and h0) for adaptive steps")
        for k, v in (("atol", atol), ("rtol", rtol), ("h0", h0), ("h_min", h_min)):
            if v is not None:
                step[k] = _finite(k, v)
    else:
        if h is None:
            raise ValueError("h: expected a step size (or atol/rtol for adaptive steps)")
        step["h"] = _finite("h", h)
    if max_steps is not None:
        step["max_steps"] = _integer("max_steps", max_steps, 1, 2**62)
    if not isinstance(method, str):
        raise TypeError(f"method: expected a method's name (lb.methods()), got {method!r}")
    config = {"model": model.spec, "method": method, "time": {"t0": t0, "t1": t1}, "step": step,
              "outputs": {"samples": _integer("samples", (0 if section is not None else 2) if samples is None else samples, 0, 2**62)},
              # The config needs a state; every row, this one too, is checked by the binding, naming y0.
              "initial": {"state": [float(x) for x in a[0]], "tolerance": 1e300}}
    if model.sampler:
        config["parameter_sampler"] = model.sampler
    if section is not None:
        if not isinstance(section, (Hyperplane, Stroboscopic)):
            raise TypeError(f"section: expected lb.Hyperplane or lb.Stroboscopic, got {type(section).__name__}")
        config["section"] = dict(section.json, max_hits=_integer("max_hits", max_hits, 0, 2**62))
    arrays, attrs = _call(_liebatch.solve, _json(config), section is not None, a, one, single, bool(normalize),
                          float(tolerance), device, _integer("threads", threads, 0, _MAX_THREADS), bool(simd), _progress(progress))
    if single:
        for k in _FLOAT_KEYS:
            if k in arrays:
                arrays[k] = arrays[k].astype(np.float32)
    return Output(arrays, attrs)


def statistics(out, bins=32, lo=None, hi=None, threads=0):
    """Statistics of an output's observables (ensemble/statistics.hpp) from the members that ended ok:
    {"samples": {field: (samples, observables)}, "hits": {field: (observables,)}}, fields count,
    failed, nan, mean, var (unbiased), min, max, lo, hi, under, over, and bins (a histogram of `bins`
    equal bins over [lo, hi), or the values' [min, max]; its last axis). Bitwise independent of the
    thread count and the order of the members."""
    if not isinstance(out, Output):
        raise TypeError(f"out: expected a liebatch.Output, got {type(out).__name__}")
    if "samples/observables" not in out and "hits/member" not in out:
        raise ValueError("out: it has no samples/observables (samples=0) and no section's hits")
    if "samples/observables" in out:
        obs = np.ascontiguousarray(out["samples/observables"], dtype=np.float64)
    else:  # a section's hits alone (poincare's default): no samples
        obs = np.zeros((0, len(out["names/observables"]), len(out["final/status"])))
    nobs = obs.shape[1]
    member = np.ascontiguousarray(out["hits/member"] if "hits/member" in out else np.zeros(0), dtype=np.int64)
    # hits/member holds the config's indices; a slice's (--members A:B) statuses start at member A.
    member = member - np.int64(out.attrs.get("", {}).get("members_begin", 0))
    hit_obs = np.ascontiguousarray(out["hits/observables"] if "hits/observables" in out else np.zeros((0, nobs)), dtype=np.float64)
    if nobs == 0:  # a model without observables: its rows of width 0 are stored as (0,)
        hit_obs = np.zeros((len(member), 0))
    lo = None if lo is None else _finite("lo", lo)
    hi = None if hi is None else _finite("hi", hi)
    bins = _integer("bins", bins, 1, 2**24)
    if obs.shape[0] * max(nobs, 1) * bins > 2**28:  # the histograms' counts: at most 2 GiB
        raise ValueError(f"bins: {bins} bins for each of {obs.shape[0]} samples x {nobs} observables are more than 2^28 counts")
    return _liebatch.statistics(obs, np.ascontiguousarray(out["final/status"], dtype=np.uint8), member, hit_obs, bins, lo, hi,
                                _integer("threads", threads, 0, _MAX_THREADS))


def merge(parts, path, force=False):
    """Joins slices of one run into the whole run's output, written to `path` and returned (as
    lb.load gives it): `parts` are Outputs of lb.run_config(cfg, members=(a, b)) or files of
    `liebatch run|poincare --members A:B`, in any order. The checks of `liebatch merge`: one config,
    command, model, method and liebatch version, every member once (a gap or an overlap is named:
    ValueError); an existing `path` is replaced only if liebatch wrote it, or with force=True, and
    never when it is a part."""
    path = os.fspath(path)
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):  # (before the scratch directory beside it is named instead)
        raise FileNotFoundError(f"cannot write output {path!r}: no directory {os.path.dirname(os.path.abspath(path))!r}")
    with _temporaries_removed_on_signal(), tempfile.TemporaryDirectory(prefix=".tmp-merge-",
                                                                       dir=os.path.dirname(os.path.abspath(path))) as scratch:
        files, names = [], []  # names: how merged_from lists each part (an Output's file is gone after)
        for k, p in enumerate(parts):
            if isinstance(p, Output):
                files.append(os.path.join(scratch, f"part{k}.h5"))
                names.append(f"parts[{k}] (an Output in memory)")
                p.save(files[-1])
            else:
                files.append(os.fspath(p))
                names.append(files[-1])
        _call(_liebatch.merge, files, names, path, bool(force))
    return load(path)


def run_config(config, command="run", device="auto", precision="double", threads=0, simd=True, batch=0, progress=None,
               members=None):
    """Runs a command (run, poincare, converge, validate) of a config — a file, or a dict in its
    form — as `liebatch <command>` does, the output kept in memory (one copy, from the batches into
    its arrays) instead of a file. `members=(a, b)` runs members a to b - 1 alone (run, poincare:
    a slice, as --members; lb.merge joins slices). Config errors raise ValueError naming the JSON
    path, file errors OSError. The Output's exit_status is the command's (1: validate failed, or
    no member finished)."""
    if command not in ("run", "poincare", "converge", "validate"):
        raise ValueError(f"command: expected one of run, poincare, converge, validate, got {command!r}")
    span = ""
    if members is not None:
        try:
            a, b = (operator.index(x) for x in members)
        except (TypeError, ValueError):
            raise TypeError(f"members: expected (a, b), two integers, got {members!r}") from None
        if a < 0 or b < 0:
            raise ValueError(f"members: expected 0 <= a < b, got {members!r}")
        span = f"{a}:{b}"
    if isinstance(config, dict):
        text, path = _json(config), ""
    else:
        text, path = "", os.fspath(config)
    arrays, attrs, status = _liebatch.run_config(text, path, command, _choice("device", device, _DEVICES),
                                                 _choice("precision", precision, ("double", "float")),
                                                 _integer("threads", threads, 0, _MAX_THREADS), bool(simd),
                                                 _integer("batch", batch, 0, _MAX_MEMBERS), span, _progress(progress))
    return Output(arrays, attrs, status)
