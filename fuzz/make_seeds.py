#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora (fuzz/corpus/<target>/), small and
deterministic: the shapes that broke or nearly broke a kernel. Run it from
anywhere after changing it; the files are committed."""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261203)


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def write(target, name, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


# The first overflow: one- and two-byte varints, then 40 continuation bytes.
OVERFLOW = b"\x01" * 56 + b"\x81\x01" * 4 + b"\x80" * 40
packed = {
    "overflow": OVERFLOW,
    "one_byte": bytes(rng.randrange(128) for _ in range(200)),
    "two_byte": b"".join(varint(rng.randrange(128, 16384)) for _ in range(100)),
    "mixed": b"".join(varint(rng.getrandbits(rng.randrange(1, 65))) for _ in range(80)),
    "negative_int32": b"".join(varint((-1 - i) & (2**64 - 1)) for i in range(40)),
    "eleven_bytes": b"\x01" * 70 + b"\x80" * 10 + b"\x01" + b"\x02" * 20,
    "long_run": b"\x05" * 30 + b"\x80" * 80,
    "poor_tail": b"\x01\x81\x01" * 30 + b"\x80" * 20 + b"\x01" + b"\x80" * 30,
    "tenth_byte": b"\x05" + b"\xff" * 9 + b"\x7e\x07" + b"\x01" * 64,
    "cut": b"".join(varint(rng.getrandbits(35)) for _ in range(30))[:-2],
}
for name, data in packed.items():
    for slop in (0, 16):  # the decoder's first byte: bytes past `end`
        write("varint_decode", f"{name}_{slop}", bytes([slop]) + data)
    write("varint_count", name, data)
# Slop 3: the last varint starts before `end` and ends after it, at the
# last byte before `limit`, or reaches `limit` unterminated (an error).
write("varint_decode", "straddle_end_3", b"\x03" + b"\x01" * 70 + b"\xff" * 5 + b"\x01")
write("varint_decode", "straddle_limit_3", b"\x03" + b"\x01" * 70 + b"\xff" * 5)

utf8 = {
    "ascii": b"hello, world " * 10,
    "two_byte": "\u00e9\u00e8\u00ea".encode() * 30,
    "mixed": "a\u00e9\u20ac\U0001F600".encode() * 20,
    "overlong": b"a" * 40 + b"\xc0\xaf" + b"b" * 30,
    "surrogate": b"x" * 63 + b"\xed\xa0\x80",
    "too_big": b"\xf4\x90\x80\x80" + b"y" * 70,
    "truncated": "\u20ac".encode() * 21 + b"\xe2\x82",
    "stray_continuation": b"z" * 31 + b"\x80" + b"z" * 40,
    "overlong_c1": b"b" * 47 + b"\xc1\xbf" + b"b" * 20,
    "overlong_3": b"c" * 15 + b"\xe0\x80\xaf" + b"c" * 50,
    "overlong_4": b"d" * 33 + b"\xf0\x80\x80\xaf" + b"d" * 40,
    "too_big_f5": b"e" * 60 + b"\xf5\x80\x80\x80" + b"e" * 10,
    "lead_f8": b"f" * 30 + b"\xf8\x88\x80\x80\x80" + b"f" * 40,
    "lead_ff": b"g" * 64 + b"\xff" + b"g" * 10,
    "cut_in_middle": "\u20ac".encode() * 10 + b"\xe2\x82" + b"h" * 40,
    # Valid: four-byte characters across the 16-, 32- and 64-byte blocks.
    "four_byte_across_blocks": b"i" * 62 + "\U0001F600".encode() * 17,
}
for name, data in utf8.items():
    write("utf8_validate", name, data)

for type_byte in range(5):
    wide = type_byte >= 3
    size = 8 if wide else 4
    values = [0, 1, 127, 128, 16383, 16384, 2**31 - 1, 2**31, 2**32 - 1]
    values += [rng.getrandbits(8 * size) for _ in range(40)]
    data = b"".join((v % 2 ** (8 * size)).to_bytes(size, "little") for v in values)
    write("varint_encode", f"type{type_byte}", bytes([type_byte]) + data)
    write("varint_encode", f"type{type_byte}_negative",
          bytes([type_byte]) + b"\xff" * (size * 70))


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


# Messages of tests/libprotobuf/corpus{2,3}.proto: packed fields of every
# shape above, a cut one, and the first overflow's 124-byte message.
write("message", "overflow", b"\x0a\x68" + OVERFLOW + b"\x12\x10" + b"p" * 16)
for number in (1, 2, 3, 4, 5, 6, 7, 8, 100, 101, 105):
    for name in ("mixed", "negative_int32", "overflow", "poor_tail"):
        write("message", f"field{number}_{name}", field(number, packed[name]))
write("message", "cut_field", field(4, packed["mixed"])[:-3])
write("message", "nested", field(14, field(3, packed["two_byte"]) + field(16, utf8["mixed"])))
write("message", "bad_utf8", field(16, utf8["surrogate"]))
