"""Sets: the `unique` family, `isin`, `intersect1d`, `union1d`, `setdiff1d`, `setxor1d`,
with JAX's results.

Everything is sorting on the device. `lax.sort` puts equal values (or equal slices,
sorted lexicographically) next to each other; a comparison with the neighbour marks
where a new value starts; a second stable sort, on "not marked", moves the marked
entries to the front in their order (compaction, with no scatter). Sorting follows
JAX's order: NaN last, -0.0 equal to 0.0, equal entries in their input order.

The length of a result depends on the values, so, as in JAX, a static `size=` fixes
it: a longer result is cut, a shorter one padded with `fill_value` (or the default
JAX pads with). Without `size=` the inputs must be concrete (not traced under `jit`):
the device computes the result padded to its largest possible length and the number
of entries, and only that number is read back, to cut it.

>>> import jaxwg.numpy as jnp
>>> jnp.unique(jnp.array([3, 1, 3, 2])).tolist()
[1, 2, 3]
>>> jnp.setdiff1d(jnp.array([1, 2, 3, 4]), jnp.array([2, 4]), size=3, fill_value=-1).tolist()
[1, 3, -1]
"""

from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from .. import lax
from ._util import aval_of, canonicalize_axis, check_arraylike, concrete, promote, to_array
from .creation import arange, full, zeros
from .joining import concatenate, stack
from .reductions import any as _any
from .reductions import cumsum
from .reductions import min as _min
from .reductions import sum as _sum
from .manipulation import moveaxis, ravel, reshape
from .statistics import searchsorted
from .ufuncs import isnan, logical_and, logical_not, logical_or, minimum, where

__all__ = ["intersect1d", "isin", "setdiff1d", "setxor1d", "union1d", "unique", "unique_all",
           "unique_counts", "unique_inverse", "unique_values"]

_SIZE_HINT = ("To make jnp.{name}() compatible with JIT and other transforms, you can specify a "
              "concrete value for the size argument, which will determine the output size.")


def _output_size(name: str, size, *arrays):
    """`size=` as a Python int; without it (None), the result's length depends on the
    values of `arrays`, so they must be concrete (JAX's error when they are traced)."""
    if size is not None:
        return operator.index(concrete(
            size, f"The error arose for the size argument of jnp.{name}(): it decides the "
                  "shape of the result. " + _SIZE_HINT.format(name=name)))
    for a in arrays:
        concrete(a, f"The error arose in jnp.{name}(). " + _SIZE_HINT.format(name=name))
    return None


def _resize(x, length: int):
    """The 1-d `x` cut or padded (with zeros) to `length`."""
    n = aval_of(x).shape[0]
    if length <= n:
        return lax.slice(x, (0,), (length,))
    return lax.pad(x, lax.full((), 0, aval_of(x).dtype), [(0, length - n, 0)])


def _compact(keep, values, length: int):
    """The entries of the 1-d `values` where `keep` holds, in their order, then the
    others, as an array of `length`: a stable sort on `not keep`."""
    # an int32 key: the sort compiles once per signature, and `unique`'s inverse sorts
    # (int32, int32) operands of the same length
    key = lax.convert_element_type(logical_not(keep), np.int32)
    _, out = lax.sort((key, values), num_keys=1)
    return _resize(out, length)


def _neighbours_differ(later, earlier, equal_nan: bool):
    differ = later != earlier
    if equal_nan and aval_of(later).dtype.is_float:
        differ = logical_and(differ, logical_not(logical_and(isnan(later), isnan(earlier))))
    return differ


def _sort_rows(rows):
    """The rows of the 2-d `rows` in lexicographic order (first column first), and the
    permutation that sorts them (int32)."""
    n, width = aval_of(rows).shape
    position = lax.iota(np.int32, n)
    if width == 0:  # all rows are equal (and empty)
        return rows, position
    *columns, perm = lax.sort((*[rows[:, k] for k in range(width)], position), num_keys=width)
    return stack(columns, axis=1), perm


class _Unique(NamedTuple):
    values: object  # the distinct slices, padded to `size`
    index: object  # where each first occurs
    inverse: object  # for each slice, its distinct slice
    counts: object
    count: object  # the number of distinct slices (traced)


def _unique(x, size: int, *, equal_nan: bool, fill_value=None, index=False, inverse=False,
            counts=False) -> _Unique:
    """The distinct slices of `x` along axis 0 (not empty), sorted, in an array of `size`
    slices: a longer result is cut; a shorter one is padded with `fill_value`, or with
    the smallest slice (JAX's default)."""
    shape = aval_of(x).shape
    n = shape[0]
    rows = lax.reshape(x, (n, int(np.prod(shape[1:], dtype=np.int64))))
    rows, perm = _sort_rows(rows)
    starts = concatenate([np.ones(1, bool),
                          _any(_neighbours_differ(rows[1:], rows[:-1], equal_nan), axis=1)])
    count = _sum(starts)
    position = lax.iota(np.int32, n)
    valid = arange(size + 1) < count
    # where each distinct slice starts among the sorted ones; the padding starts at n, so
    # the differences of consecutive starts are the counts (0 for the padding)
    start = where(valid, _compact(starts, position, size + 1), n)
    first = where(valid[:size], start[:size], 0)
    values = lax.reshape(rows[first], (size,) + shape[1:])
    if fill_value is not None:
        fill = lax.convert_element_type(to_array(fill_value), aval_of(values).dtype)
        values = where(reshape(valid[:size], (size,) + (1,) * (len(shape) - 1)), values, fill)
    return _Unique(
        values=values,
        index=perm[first] if index else None,
        # the rank of each sorted slice's group, put back in input order by sorting on perm
        inverse=lax.sort((perm, cumsum(starts) - 1), num_keys=1)[1] if inverse else None,
        counts=start[1:] - start[:-1] if counts else None,
        count=count)


def _unique_of_empty(x, size, fill_value, index, inverse, counts) -> _Unique:
    """JAX's `unique` of an input with no slices."""
    if size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    shape = aval_of(x).shape
    dtype = aval_of(x).dtype
    values = full((size or 0,) + shape[1:], 0 if fill_value is None else fill_value, dtype)
    empty = zeros(0, np.int32)
    return _Unique(values, empty if index else None, empty if inverse else None,
                   empty if counts else None, 0)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None, sorted=True):
    """The sorted distinct elements of `ar` (flattened), or its distinct slices along
    `axis`; with the first index, the inverse (the index of each element's distinct
    value, in `ar`'s shape when `axis` is None) and the counts, as asked. `equal_nan`
    counts all NaNs as one value; `size` and `fill_value` are for `jit` (see the module
    docstring); `sorted` is ignored, as in JAX (results are always sorted).

    >>> import jaxwg.numpy as jnp
    >>> values, counts = jnp.unique(jnp.array([3, 1, 3]), return_counts=True)
    >>> values.tolist(), counts.tolist()
    ([1, 3], [1, 2])
    >>> jnp.unique(jnp.array([[1, 2], [0, 5], [1, 2]]), axis=0).tolist()
    [[0, 5], [1, 2]]
    """
    check_arraylike("unique", ar)
    x = to_array(ar)
    size = _output_size("unique", size, x)
    shape = aval_of(x).shape
    flat = axis is None
    if flat:
        x, axis = ravel(x), 0
    else:
        axis = canonicalize_axis(axis, len(shape))
        x = moveaxis(x, axis, 0)
    n = aval_of(x).shape[0]
    if n == 0:
        parts = _unique_of_empty(x, size, fill_value, return_index, return_inverse, return_counts)
    else:
        parts = _unique(x, n if size is None else size, equal_nan=equal_nan, fill_value=fill_value,
                        index=return_index, inverse=return_inverse, counts=return_counts)
    values, index, counts = parts.values, parts.index, parts.counts
    if size is None and n:
        values, index, counts = [None if a is None else a[:int(parts.count)]
                                 for a in (values, index, counts)]
    out = [moveaxis(values, 0, axis)]
    if return_index:
        out.append(index)
    if return_inverse:
        out.append(reshape(parts.inverse, shape) if flat else parts.inverse)
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


class UniqueAllResult(NamedTuple):
    """`unique_all`'s result."""
    values: object
    indices: object
    inverse_indices: object
    counts: object


class UniqueCountsResult(NamedTuple):
    """`unique_counts`'s result."""
    values: object
    counts: object


class UniqueInverseResult(NamedTuple):
    """`unique_inverse`'s result."""
    values: object
    inverse_indices: object


def unique_all(x, /, *, size=None, fill_value=None):
    """`unique` with every result (NaNs distinct), as a named tuple: `values`,
    `indices`, `inverse_indices` (in `x`'s shape), `counts`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.unique_all(jnp.array([2, 1, 2])).inverse_indices.tolist()
    [1, 0, 1]
    """
    check_arraylike("unique_all", x)
    return UniqueAllResult(*unique(x, True, True, True, equal_nan=False, size=size,
                                   fill_value=fill_value))


def unique_counts(x, /, *, size=None, fill_value=None):
    """The distinct values of `x` (NaNs distinct) and their counts, as a named tuple.

    >>> import jaxwg.numpy as jnp
    >>> jnp.unique_counts(jnp.array([2, 1, 2])).counts.tolist()
    [1, 2]
    """
    check_arraylike("unique_counts", x)
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                      fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """The distinct values of `x` (NaNs distinct) and, in `x`'s shape, the index of each
    element's value among them, as a named tuple.

    >>> import jaxwg.numpy as jnp
    >>> jnp.unique_inverse(jnp.array([[5, 3], [3, 3]])).inverse_indices.tolist()
    [[1, 0], [0, 0]]
    """
    check_arraylike("unique_inverse", x)
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_values(x, /, *, size=None, fill_value=None):
    """The sorted distinct values of `x` (flattened; NaNs distinct).

    >>> import jaxwg.numpy as jnp
    >>> jnp.unique_values(jnp.array([2.0, jnp.nan, jnp.nan])).tolist()
    [2.0, nan, nan]
    """
    check_arraylike("unique_values", x)
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


_ISIN_METHODS = ("compare_all", "binary_search", "sort", "auto")


def _found_by_comparing_all(elements, tests):
    """Each element against every test value: one fused reduction, no buffer, but
    len(elements) x len(tests) work."""
    return _any(elements[:, None] == tests[None, :], axis=1)


def _found_by_binary_search(elements, tests):
    tests = lax.sort(tests)
    at = minimum(searchsorted(tests, elements), aval_of(tests).shape[0] - 1)
    return tests[at] == elements


def _found_by_sorting(elements, tests):
    """Sort elements and test values together, test values first among equals (they
    come first in the input); an element is found if the last test value at or before
    it equals it. Then a sort on the input position puts the answers back in order."""
    m = aval_of(tests).shape[0]
    both = concatenate([tests, elements])
    position = lax.iota(np.int32, aval_of(both).shape[0])
    values, origin = lax.sort((both, position), num_keys=1)
    last_test = lax.cummax(where(origin < m, position, -1))
    found = logical_and(last_test >= 0, values[lax.max(last_test, 0)] == values)
    _, found = lax.sort((origin, found), num_keys=1)
    return found[m:]


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Whether each element of `element` is among `test_elements` (not, with `invert`),
    in `element`'s shape. `method`: "compare_all" (and "auto", as in JAX) compares every
    pair in one fused reduction; "sort" sorts both together (n log^2 n work, for large
    inputs); "binary_search" sorts `test_elements` and searches them. `assume_unique`
    changes nothing here.

    >>> import jaxwg.numpy as jnp
    >>> jnp.isin(jnp.array([[1, 4], [2, 5]]), jnp.array([4, 5, 6])).tolist()
    [[False, True], [False, True]]
    """
    check_arraylike("isin", element, test_elements)
    if method not in _ISIN_METHODS:
        raise ValueError(f"{method=} is not implemented; options are 'compare_all', "
                         "'binary_search', 'sort', and 'auto'")
    elements, tests = promote(to_array(element), to_array(test_elements))
    shape = aval_of(elements).shape
    elements, tests = ravel(elements), ravel(tests)
    if aval_of(elements).size == 0 or aval_of(tests).size == 0:
        found = zeros(aval_of(elements).shape, bool)
    elif method == "sort":
        found = _found_by_sorting(elements, tests)
    elif method == "binary_search":
        found = _found_by_binary_search(elements, tests)
    else:
        found = _found_by_comparing_all(elements, tests)
    found = logical_not(found) if invert else found
    return reshape(lax.convert_element_type(found, np.bool_), shape)  # never weak, as JAX


def _default_fill(values, valid):
    """JAX's padding for `intersect1d` and `setxor1d`: the smallest value of the result
    (NaN if it holds one), 0 if it is empty."""
    smallest = _min(where(valid, values, values[0]))
    return where(_any(valid), smallest, lax.full((), 0, aval_of(values).dtype))


def _padded(values, valid, fill_value):
    if aval_of(values).shape[0] == 0:
        return values
    return where(valid, values, _default_fill(values, valid) if fill_value is None else fill_value)


def _distinct(x, assume_unique: bool, index: bool = False):
    """The distinct values of the 1-d `x` (sorted, then padding: as many as `x` has), how
    many there are, and where each first occurs in `x` (if `index`)."""
    n = aval_of(x).shape[0]
    if assume_unique or n == 0:
        return x, n, lax.iota(np.int32, n)
    parts = _unique(x, n, equal_nan=True, index=index)
    return parts.values, parts.count, parts.index


def _sorted_together(a_values, a_count, b_values, b_count):
    """The valid entries of two padded arrays of distinct values sorted together (`a`'s
    first among equals), then the padding: the values, whether each is valid, and its
    position in the concatenation."""
    na = aval_of(a_values).shape[0]
    both = concatenate([a_values, b_values])
    position = lax.iota(np.int32, aval_of(both).shape[0])
    valid = logical_or(position < a_count,
                       logical_and(position >= na, position < na + b_count))
    invalid, values, origin = lax.sort((logical_not(valid), both, position), num_keys=2)
    return values, logical_not(invalid), origin


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted values found in both `ar1` and `ar2` (flattened); with
    `return_indices`, also where each first occurs in each (padding: the array's size).
    `assume_unique` skips removing duplicates (a wrong promise gives a wrong answer).

    >>> import jaxwg.numpy as jnp
    >>> values, i1, i2 = jnp.intersect1d(jnp.array([4, 1, 3]), jnp.array([3, 4, 4]),
    ...                                  return_indices=True)
    >>> values.tolist(), i1.tolist(), i2.tolist()
    ([3, 4], [2, 0], [0, 1])
    """
    check_arraylike("intersect1d", ar1, ar2)
    a, b = promote(to_array(ar1), to_array(ar2))
    size = _output_size("intersect1d", size, a, b)
    a, b = ravel(a), ravel(b)
    na, nb = aval_of(a).shape[0], aval_of(b).shape[0]
    length = min(na, nb) if size is None else size
    if min(na, nb) == 0:
        values = full(length, 0 if fill_value is None else fill_value, aval_of(a).dtype)
        out = [values, full(length, na, np.int32), full(length, nb, np.int32)]
        return tuple(out) if return_indices else values
    a_values, a_count, a_first = _distinct(a, assume_unique, return_indices)
    b_values, b_count, b_first = _distinct(b, assume_unique, return_indices)
    values, valid_sorted, origin = _sorted_together(a_values, a_count, b_values, b_count)
    # a value of both appears twice in a row: `a`'s entry, then `b`'s
    pair = logical_and(valid_sorted[1:], values[1:] == values[:-1])
    count = _sum(pair)
    at = _compact(pair, lax.iota(np.int32, na + nb - 1), length)
    valid = arange(length) < count
    out = [_padded(values[at], valid, fill_value)]
    if return_indices:
        out += [where(valid, a_first[origin[at]], na),
                where(valid, b_first[origin[at + 1] - na], nb)]
    if size is None:
        out = [x[:int(count)] for x in out]
    return tuple(out) if return_indices else out[0]


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted values found in `ar1` or `ar2` (flattened; `unique` of both).

    >>> import jaxwg.numpy as jnp
    >>> jnp.union1d(jnp.array([3, 1]), jnp.array([2, 3])).tolist()
    [1, 2, 3]
    """
    check_arraylike("union1d", ar1, ar2)
    a, b = to_array(ar1), to_array(ar2)
    size = _output_size("union1d", size, a, b)
    return unique(concatenate([a, b], axis=None), size=size, fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted distinct values of `ar1` (flattened) not found in `ar2`, in `ar1`'s
    dtype; padding `fill_value` defaults to 0, as in JAX.

    >>> import jaxwg.numpy as jnp
    >>> jnp.setdiff1d(jnp.array([5, 1, 3, 1]), jnp.array([3])).tolist()
    [1, 5]
    """
    check_arraylike("setdiff1d", ar1, ar2)
    a, b = to_array(ar1), to_array(ar2)
    size = _output_size("setdiff1d", size, a, b)
    a, b = ravel(a), ravel(b)
    n = aval_of(a).shape[0]
    length = n if size is None else size
    fill = lax.convert_element_type(to_array(0 if fill_value is None else fill_value),
                                    aval_of(a).dtype)
    if n == 0:
        return lax.broadcast_in_dim(fill, (length,), ())
    values, count, _ = _distinct(a, assume_unique)
    keep = logical_and(arange(n) < count, isin(values, b, invert=True))
    kept = _sum(keep)
    out = where(arange(length) < kept, values[_compact(keep, lax.iota(np.int32, n), length)], fill)
    return out[:int(kept)] if size is None else out


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted values found in exactly one of `ar1` and `ar2` (flattened).

    >>> import jaxwg.numpy as jnp
    >>> jnp.setxor1d(jnp.array([1, 2, 3]), jnp.array([3, 4])).tolist()
    [1, 2, 4]
    """
    check_arraylike("setxor1d", ar1, ar2)
    a, b = promote(to_array(ar1), to_array(ar2))
    size = _output_size("setxor1d", size, a, b)
    a, b = ravel(a), ravel(b)
    n = aval_of(a).shape[0] + aval_of(b).shape[0]
    length = n if size is None else size
    if n == 0:
        return full(length, 0 if fill_value is None else fill_value, aval_of(a).dtype)
    a_values, a_count, _ = _distinct(a, assume_unique)
    b_values, b_count, _ = _distinct(b, assume_unique)
    values, valid, _ = _sorted_together(a_values, a_count, b_values, b_count)
    differ = values[1:] != values[:-1]  # NaNs differ: a NaN in both is in the result twice
    new = concatenate([np.ones(1, bool), differ])
    # the next entry is the padding after the last valid one
    last = concatenate([logical_or(differ, logical_not(valid[1:])), np.ones(1, bool)])
    alone = logical_and(valid, logical_and(new, last))
    count = _sum(alone)
    out = _padded(values[_compact(alone, lax.iota(np.int32, n), length)],
                  arange(length) < count, fill_value)
    return out[:int(count)] if size is None else out
