"""The key order of a Perl 5 hash, so that compat mode can sum and tie-break as NIST's scripts do.

``statAP_MQ_eval_v3.pl`` sums over ``keys %hash`` and sorts tied scores in that order, and
both scripts order topic ids that compare equal as numbers (``"abc" <=> "xyz"`` is 0) by it.
Perl's key order is a property of the hash table: which bucket a key's hash selects, the
order of the keys inside a bucket, and the order the iterator visits the buckets. With
``PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0`` all three are deterministic, and this module
computes them for the perl the scripts were run with: **perl 5.36 on 64 bits**
(``PERL_HASH_SEED_DEBUG=1 perl -e 1`` prints ``HASH_FUNCTION = SBOX32_WITH_SIPHASH_1_3``).

What decides the order (read from perl 5.36's ``hv.c``, ``hv_func.h``, ``sbox32_hash.h``,
``perl_siphash.h`` and ``util.c``; this is our own implementation of what they describe):

* The hash of a key of at most 24 bytes is SBOX32: a table of ``1 + 24 * 256`` 32-bit words
  filled by a xorshift128 generator whose four words start from the seed's last 16 bytes
  (all zero here) mixed by 2 x 128 rounds; the hash is the table's first word XORed with one
  word per byte (row = byte position, column = byte value). A longer key is hashed by
  SipHash-1-3 keyed by the seed's first 16 bytes, the 64-bit result folded to 32 bits by XOR.
* A new hash has 8 buckets; a key goes to bucket ``hash & (buckets - 1)``, at the head of the
  bucket's list. After an insertion into a bucket that was not empty, when
  ``keys + keys // 2 > buckets - 1`` the table doubles: each bucket's list is walked head
  to tail and a key whose new bit is set moves to the head of bucket ``i + old size`` (so
  moved keys reverse their order; the ones that stay keep theirs).
* ``keys`` visits bucket ``i ^ rand`` for ``i = 0, 1, ...`` (``rand`` masked to the table),
  each list head to tail. With ``PERL_PERTURB_KEYS=0`` nothing changes ``rand`` after
  start-up: it is ``0xbe49d17f`` with every seed byte mixed in by XOR and rotations, which
  for a zero seed leaves it unchanged.

Overwriting a key's value changes nothing; deletions are not modelled (the scripts do not
delete). Keys are hashed as their UTF-8 bytes, as Perl hashes a byte string read from a
file without an encoding layer.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from functools import cache
from typing import Final, Generic, TypeVar

__all__ = ["PerlHashOrder", "perl_hash", "perl_keys"]

_M32: Final = 0xFFFFFFFF
_M64: Final = 0xFFFFFFFFFFFFFFFF
SBOX32_MAX_LEN: Final = 24
_CHURN_ROUNDS: Final = 128
_START_BUCKETS: Final = 8
_ITER_RAND: Final = (
    0xBE49D17F  # PL_hash_rand_bits for a zero seed, never updated when not perturbed
)


def _rotl32(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def _rotl64(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M64


def _mix4(s: list[int]) -> None:
    """One churn round over the four generator words, in place."""
    v0, v1, v2, v3 = s
    v0 = (_rotl32(v0, 13) - v3) & _M32
    v1 ^= v2
    v3 = (_rotl32(v3, 9) + v1) & _M32
    v2 ^= v0
    v0 = _rotl32(v0, 14) ^ v3
    v1 = (_rotl32(v1, 25) - v2) & _M32
    v3 ^= v1
    v2 = (_rotl32(v2, 4) - v0) & _M32
    s[:] = [v0, v1, v2, v3]


@cache
def _sbox() -> tuple[int, ...]:
    """The SBOX32 table for a zero 128-bit seed: word 0, then 24 rows of 256 words."""
    seed = (0, 0, 0, 0)  # the seed's last 16 bytes as four little-endian words
    s = [seed[1] ^ 0x786F6273, seed[0] ^ 0x68736168, seed[2] ^ 0x646F6F67, seed[3] ^ 0x74736166]
    s = [w or fallback for w, fallback in zip(s, (1, 2, 4, 8), strict=True)]
    for _ in range(_CHURN_ROUNDS):
        _mix4(s)
    for i, word in enumerate((seed[3], seed[2], seed[1], seed[0])):
        s[i] ^= ~word & _M32
    s = [w or fallback for w, fallback in zip(s, (8, 4, 2, 1), strict=True)]
    for _ in range(_CHURN_ROUNDS):
        _mix4(s)
    x, y, z, w = s
    words: list[int] = []
    for _ in range(256 * SBOX32_MAX_LEN + 1):
        t = (x ^ (x << 5)) & _M32
        x, y, z = y, z, w
        w = (w ^ (w >> 29)) ^ (t ^ (t >> 12))
        words.append(w)
    return (words[-1], *words[:-1])  # the last draw is word 0


def _siphash13(data: bytes) -> int:
    """SipHash-1-3 keyed by 16 zero bytes, folded to 32 bits as Perl folds it."""
    v0, v1 = 0x736F6D6570736575, 0x646F72616E646F6D
    v2, v3 = 0x6C7967656E657261, 0x7465646279746573

    def rounds(n: int) -> None:
        nonlocal v0, v1, v2, v3
        for _ in range(n):
            v0 = (v0 + v1) & _M64
            v1 = _rotl64(v1, 13) ^ v0
            v0 = _rotl64(v0, 32)
            v2 = (v2 + v3) & _M64
            v3 = _rotl64(v3, 16) ^ v2
            v0 = (v0 + v3) & _M64
            v3 = _rotl64(v3, 21) ^ v0
            v2 = (v2 + v1) & _M64
            v1 = _rotl64(v1, 17) ^ v2
            v2 = _rotl64(v2, 32)

    whole = len(data) - len(data) % 8
    for i in range(0, whole, 8):
        m = int.from_bytes(data[i : i + 8], "little")
        v3 ^= m
        rounds(1)
        v0 ^= m
    b = ((len(data) & 0xFF) << 56) | int.from_bytes(data[whole:], "little")
    v3 ^= b
    rounds(1)
    v0 ^= b
    v2 ^= 0xFF
    rounds(3)
    h = v0 ^ v1 ^ v2 ^ v3
    return (h & _M32) ^ (h >> 32)


def perl_hash(key: str | bytes) -> int:
    """The 32-bit hash perl 5.36 gives ``key`` under ``PERL_HASH_SEED=0``.

    The same value as ``Hash::Util::hash_value($key)`` in that perl.

    >>> hex(perl_hash("a"))
    '0x8e711474'
    """
    data = key.encode("utf-8") if isinstance(key, str) else key
    if len(data) > SBOX32_MAX_LEN:
        return _siphash13(data)
    table = _sbox()
    h = table[0]
    for i, byte in enumerate(data):
        h ^= table[1 + 256 * i + byte]
    return h


K = TypeVar("K", bound=Hashable)


class PerlHashOrder(Generic[K]):
    """The keys of one Perl hash, built by the same insertions, in the order ``keys`` gives.

    ``name(key)`` is the string Perl sees (for a key that is not a string: ``str(key)``).

    >>> h = PerlHashOrder[str]()
    >>> for k in "abcdefghijk":
    ...     h.insert(k)
    >>> "".join(h)
    'keibdahcfjg'
    """

    def __init__(self, keys: Iterable[K] = ()) -> None:
        self._buckets: list[list[K]] = [[] for _ in range(_START_BUCKETS)]
        self._hashes: dict[K, int] = {}
        for key in keys:
            self.insert(key)

    def __len__(self) -> int:
        return len(self._hashes)

    def __contains__(self, key: object) -> bool:
        return key in self._hashes

    def insert(self, key: K) -> None:
        """``$h{key} = ...``: a new key goes to the head of its bucket; an existing one stays."""
        if key in self._hashes:
            return
        h = perl_hash(key if isinstance(key, (str, bytes)) else str(key))
        self._hashes[key] = h
        bucket = self._buckets[h & (len(self._buckets) - 1)]
        collision = bool(bucket)
        bucket.insert(0, key)
        keys, top = len(self._hashes), len(self._buckets) - 1
        if collision and keys + (keys >> 1) > top:
            self._split()

    def _split(self) -> None:
        old = len(self._buckets)
        self._buckets.extend([] for _ in range(old))
        mask = 2 * old - 1
        for i in range(old):
            stay: list[K] = []
            for key in self._buckets[i]:  # head to tail; a mover goes to the head of its new list
                j = self._hashes[key] & mask
                if j == i:
                    stay.append(key)
                else:
                    self._buckets[j].insert(0, key)
            self._buckets[i] = stay

    def __iter__(self) -> Iterator[K]:
        mask = len(self._buckets) - 1
        for i in range(len(self._buckets)):
            yield from self._buckets[(i ^ _ITER_RAND) & mask]


def perl_keys(keys: Iterable[K]) -> list[K]:
    """``keys %h`` of a hash that got ``keys`` inserted in this order (repeats ignored)."""
    return list(PerlHashOrder(keys))
