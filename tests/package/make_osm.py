#!/usr/bin/env python3
"""A deterministic OSM XML file (nodes with tags, ways, relations) for
osmium to write as .osm.pbf and osmpbf-outline to read (ci/package-test.sh).
Its packed fields (dense node ids, coordinates, way refs, key/value
indexes) are what libprotobuf's accelerated parsers decode."""

import random
import sys

rng = random.Random(7)
out = sys.stdout
out.write("<?xml version='1.0' encoding='UTF-8'?>\n<osm version='0.6' generator='protoaccel'>\n")
nodes = 20000
for i in range(1, nodes + 1):
    lat = rng.uniform(-80, 80)
    lon = rng.uniform(-179, 179)
    tags = ""
    if rng.random() < 0.1:
        amenity = rng.choice(["cafe", "pub", "caf\u00e9"])
        tags = f"<tag k='name' v='n\u00f8de {i}'/><tag k='amenity' v='{amenity}'/>"
    out.write(f" <node id='{i}' version='1' lat='{lat:.7f}' lon='{lon:.7f}'>{tags}</node>\n")
for w in range(1, 2001):
    refs = "".join(f"<nd ref='{rng.randrange(1, nodes + 1)}'/>" for _ in range(rng.randrange(2, 60)))
    out.write(f" <way id='{w}' version='1'>{refs}<tag k='highway' v='residential'/></way>\n")
for r in range(1, 101):
    members = "".join(f"<member type='way' ref='{rng.randrange(1, 2001)}' role='outer'/>"
                      for _ in range(rng.randrange(1, 30)))
    out.write(f" <relation id='{r}' version='1'>{members}<tag k='type' v='multipolygon'/></relation>\n")
out.write("</osm>\n")
