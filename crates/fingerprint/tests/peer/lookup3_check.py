"""Bob Jenkins' lookup3.c hashlittle2 (via PyPI jenkins-cffi) on the keys
priorart sends on standard input: {"keys": [hex]} -> [[c, b] as 8 hex]."""
import json
import sys

from jenkins_cffi import hashlittle2

keys = json.load(sys.stdin)["keys"]
out = []
for key in keys:
    c, b = hashlittle2(bytes.fromhex(key), 0, 0)
    out.append(["%08x" % c, "%08x" % b])
json.dump(out, sys.stdout)
