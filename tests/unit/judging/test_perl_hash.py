"""Perl's hash key order, emulated for compat mode, against the real perl 5.36."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield.judging._perl_hash import PerlHashOrder, perl_hash, perl_keys

PERL_ENV = {**os.environ, "PERL_HASH_SEED": "0", "PERL_PERTURB_KEYS": "0"}

# Inserts the keys of stdin (one a line) in order, then prints `keys %h` and each key's
# Hash::Util::hash_value.
PERL_KEYS = r"""
use Hash::Util qw(hash_value);
my %h; my @in;
while (my $k = <STDIN>) { chomp $k; push @in, $k; $h{$k} = 1; }
print "$_\n" for keys %h; print "--\n";
printf("%08x\n", hash_value($_)) for @in;
"""


def perl_order(keys: list[str]) -> tuple[list[str], list[int]]:
    perl = shutil.which("perl")
    if perl is None:
        pytest.fail("perl is not installed: the compat tests need it")
    done = subprocess.run(
        [perl, "-e", PERL_KEYS],
        input="".join(k + "\n" for k in keys).encode(),
        capture_output=True,
        env=PERL_ENV,
        check=True,
    )
    order, hashes = done.stdout.decode().split("--\n")
    return order.splitlines(), [int(h, 16) for h in hashes.split()]


# --------------------------------------------------------------------------- recorded
# Values printed by perl 5.36.0 (Debian 12) with PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0:
#   perl -MHash::Util=hash_value -e 'printf "%08x\n", hash_value($_) for @ARGV' ...


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("", 0x1D7D8691),  # SBOX32: the table's first word
        ("a", 0x8E711474),
        ("301", 0xEDFACD82),
        ("clueweb09-en0000-00-00000", 0x9F2F0954),  # 25 bytes: SipHash-1-3
        ("abcdefghijklmnopqrstuvwxyz0123456789", 0x9E50234E),
    ],
)
def test_hash_values_are_perls(key: str, value: int) -> None:
    assert perl_hash(key) == value


def test_key_order_is_perls_through_two_and_many_splits() -> None:
    # perl -e '$h{$_}=1 for qw(a b c d e f g h i j k); print join(",", keys %h)'
    assert ",".join(perl_keys("abcdefghijk")) == "k,e,i,b,d,a,h,c,f,j,g"
    # ... for 0..99 { $h{"clueweb09-en00$_"} = 1 } print join(" ", (keys %h)[0..9])
    first = perl_keys(f"clueweb09-en00{i}" for i in range(100))[:10]
    assert [k[-2:] for k in first] == ["40", "78", "21", "16", "44", "12", "83", "17", "58", "38"]


def test_a_key_inserted_again_keeps_its_place() -> None:
    h = PerlHashOrder(["x", "y", "z"])
    before = list(h)
    h.insert("x")
    assert list(h) == before
    assert len(h) == 3
    assert "y" in h


# --------------------------------------------------------------------------- against perl

_KEY = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"), blacklist_characters="\x85\xa0"
    ),
    min_size=1,
    max_size=40,
)
_DOC = st.integers(0, 5000).map(lambda n: f"GX{n:04d}-{n % 7:02d}")


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    keys=st.lists(st.one_of(_KEY, _DOC), max_size=40) | st.lists(_DOC, min_size=100, max_size=1500),
    repeat=st.lists(st.integers(0, 10_000), max_size=20),
)
def test_order_and_hashes_are_those_of_perl(keys: list[str], repeat: list[int]) -> None:
    """Random keys (any length, any script, repeated) in random insertion orders."""
    if keys:
        keys = keys + [keys[i % len(keys)] for i in repeat]  # insertions of keys already in
    order, hashes = perl_order(keys)
    assert [perl_hash(k) for k in keys] == hashes
    assert perl_keys(keys) == order
