#!/usr/bin/env python3
"""Debian's python3-protobuf (its C++ implementation, over libprotobuf.so.32)
parsing and serializing messages with packed varint fields of every type,
strings and nested messages, flat and malformed: prints what each gives, for
ci/package-test.sh to compare between Debian's library and the accelerated
one. Also checks that the C++ implementation and libprotobuf.so.32 are the
ones in use (to stderr, not compared)."""

import hashlib
import random
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.internal import api_implementation

F = descriptor_pb2.FieldDescriptorProto
KINDS = [("i32", F.TYPE_INT32), ("u32", F.TYPE_UINT32), ("s32", F.TYPE_SINT32),
         ("i64", F.TYPE_INT64), ("u64", F.TYPE_UINT64), ("s64", F.TYPE_SINT64),
         ("b", F.TYPE_BOOL), ("e", F.TYPE_INT32)]


def make_class(syntax):
    f = descriptor_pb2.FileDescriptorProto(name=f"roundtrip_{syntax}.proto",
                                           package=f"rt{syntax}", syntax=syntax)
    inner = f.message_type.add(name="Inner")
    inner.field.add(name="v", number=1, type=F.TYPE_SINT32, label=F.LABEL_REPEATED)
    inner.field.add(name="s", number=2, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    m = f.message_type.add(name="Outer")
    for i, (name, kind) in enumerate(KINDS, 1):
        fd = m.field.add(name=name, number=i, type=kind, label=F.LABEL_REPEATED)
        if syntax == "proto2":
            fd.options.packed = True
    m.field.add(name="text", number=20, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    m.field.add(name="inner", number=21, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                type_name=f".rt{syntax}.Inner")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    desc = pool.FindMessageTypeByName(f"rt{syntax}.Outer")
    return message_factory.MessageFactory(pool).GetPrototype(desc)


def value(rng, name):
    shape = rng.randrange(4)
    bits = {"i32": 32, "u32": 32, "s32": 32, "e": 32}.get(name, 64)
    if name == "b":
        return rng.random() < 0.5
    if shape == 0:
        v = rng.randrange(128)
    elif shape == 1:
        v = rng.randrange(1 << 14)
    else:
        v = rng.getrandbits(bits)
    if name in ("i32", "s32", "e") and v >= 1 << 31:
        v -= 1 << 32
    if name in ("i64", "s64") and v >= 1 << 63:
        v -= 1 << 64
    if name == "u32":
        v &= (1 << 32) - 1
    return v


def digest(b):
    return f"{len(b)} {hashlib.sha256(b).hexdigest()[:16]}"


def main():
    print(f"implementation: {api_implementation.Type()}", file=sys.stderr)
    with open("/proc/self/maps") as maps:
        libs = sorted({l.split()[-1] for l in maps if "libprotobuf" in l})
    print(f"mapped: {' '.join(libs)}", file=sys.stderr)
    if api_implementation.Type() != "cpp" or not libs:
        sys.exit("roundtrip.py: not the C++ implementation over libprotobuf")
    texts = ["", "ascii only", "h\u00e9llo w\u00f6rld", "\u65e5\u672c\u8a9e" * 40,
             "\U0001f600 emoji " * 30]
    for syntax in ("proto2", "proto3"):
        cls = make_class(syntax)
        rng = random.Random(2026)
        for case in range(300):
            m = cls()
            for name, _ in KINDS:
                n = rng.choice([0, 1, 3, 4, 16, 40, 200, 1000])
                getattr(m, name).extend(value(rng, name) for _ in range(n))
            m.text = rng.choice(texts)
            for _ in range(rng.randrange(4)):
                inner = m.inner.add()
                inner.v.extend(value(rng, "s32") for _ in range(rng.randrange(60)))
                inner.s = rng.choice(texts)
            wire = m.SerializeToString()
            back = cls()
            back.ParseFromString(wire)
            assert back == m, f"{syntax} case {case}: round trip differs"
            print(f"{syntax} {case} ok {digest(wire)} {digest(back.SerializeToString())}")
            # Malformed: cut short, one byte flipped, an overlong varint.
            for label, bad in (("cut", wire[: len(wire) * 2 // 3]),
                               ("flip", wire[:len(wire) // 2] + bytes([wire[len(wire) // 2] ^ 0x80])
                                + wire[len(wire) // 2 + 1:] if wire else b""),
                               ("long", b"\x0a\x0b" + b"\xff" * 11)):
                try:
                    got = cls.FromString(bad)
                    print(f"{syntax} {case} {label} parsed {digest(got.SerializeToString())}")
                except Exception as e:  # DecodeError, or UnicodeDecodeError for proto3 text
                    print(f"{syntax} {case} {label} error {type(e).__name__}")


main()
