"""Typed key arrays as data: how functions that only move elements take them.

`jaxwg.random` (a layer above) registers its key class, `key_data` and `wrap_key_data`
in `KEY_ARRAYS`. `key_data` gives the uint32 data of keys (shape `(..., 2)`) where every
value is a key; `moves_keys` makes a function that only moves elements (selects,
repeats, reorders or reshapes them) take keys as JAX's functions do: each key's two
words go through it alone, and its results are keys again (`keys_of_words`).

>>> import jaxwg, jaxwg.numpy as jnp
>>> jnp.flip(jaxwg.random.split(jaxwg.random.key(0), 3)).shape
(3,)
"""

from __future__ import annotations

import functools
import inspect

from ..frontend import pytree
from ..frontend.array import aval_of

KEY_ARRAYS: dict = {}


def key_data(name: str, values) -> list | None:
    """The uint32 data of typed key arrays (`jaxwg.random.key`) where every value is one,
    so that joining and selecting apply to keys as JAX's do (`wrap_keys` makes keys of
    the result); None where none is."""
    keys = [isinstance(v, KEY_ARRAYS["class"]) for v in values] if KEY_ARRAYS else [False]
    if not any(keys):
        return None
    if not all(keys):
        raise ValueError(f"{name}: dtype=key<fry> is not a valid dtype for type promotion with "
                         "arrays of other dtypes")
    return [KEY_ARRAYS["data"](v) for v in values]


def wrap_keys(data):
    """Typed keys over uint32 `data` of shape `(..., 2)` (see `key_data`)."""
    return KEY_ARRAYS["wrap"](data)


def moves_keys(*positions: int, rest: int | None = None, each: bool = False):
    """Decorator of a function that only moves elements: where its arguments at
    `positions` (by position or by name, and every positional one from `rest` on; a list
    or tuple argument by its elements) are typed key arrays, each key's two uint32 words
    go through it alone and its results are keys again. With `each`, its results are one
    per argument (`broadcast_arrays`, `atleast_1d`), and keys may come with other arrays."""
    def decorate(fn):
        signature = inspect.signature(fn)
        named = {name for i, name in enumerate(signature.parameters) if i in positions}

        def places(count: int) -> list[int]:
            tail = list(range(count))[rest:] if rest is not None else []
            return [p for p in positions if p < count] + tail

        @functools.wraps(fn)
        def moved(*args, **kwargs):
            if kwargs and named & kwargs.keys():  # keys given by name: as the positions they bind
                bound = signature.bind(*args, **kwargs)
                args, kwargs = bound.args, bound.kwargs
            at = places(len(args))
            key_class = KEY_ARRAYS.get("class")
            if key_class is None or not any(_holds(args[p], key_class) for p in at):  # the usual case
                return fn(*args, **kwargs)
            if each:
                at = [p for p in at if isinstance(args[p], key_class)]
            values = [v for p in at for v in (args[p] if isinstance(args[p], (list, tuple)) else [args[p]])]
            keys = key_data(fn.__name__, values)
            words = [fn(*_word_args(args, at, keys, w), **kwargs) for w in range(2)]
            if each:
                return _keys_where_given(words, at, len(args))
            return pytree.tree_map(keys_of_words, words[0], words[1])
        return moved
    return decorate


def _holds(value, key_class) -> bool:
    """Whether `value` is a key array or a list or tuple holding one."""
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, key_class) for v in value)
    return isinstance(value, key_class)


def _keys_where_given(words, at: list[int], count: int):
    """The results of a function with one result per argument (one argument: the result
    itself) from its two calls on the words: keys for the arguments at `at`."""
    if count == 1:
        return keys_of_words(*words)
    return [keys_of_words(a, b) if i in at else a for i, (a, b) in enumerate(zip(*words))]


def _word_args(args, at: list[int], keys: list, w: int) -> list:
    """`args` with the keys at positions `at` replaced by their word `w`."""
    out, words = list(args), iter(k[..., w] for k in keys)
    for p in at:
        if isinstance(args[p], (list, tuple)):
            out[p] = type(args[p])(next(words) for _ in args[p])
        else:
            out[p] = next(words)
    return out


def keys_of_words(first, second):
    """Typed keys from the first and the second uint32 word of each, given apart."""
    from . import lax  # which imports this module

    last = aval_of(first).ndim
    return wrap_keys(lax.concatenate([lax.expand_dims(first, (last,)), lax.expand_dims(second, (last,))], last))
