"""Generates the Python protobuf and gRPC stubs from `proto/gallerist/v1/*.proto`.

The stubs are written next to the `.proto` files (package `proto.gallerist.v1`)
and are not kept in git. `setup.py` runs this on every build; run it by hand
with `python proto/generate.py` after editing a `.proto` file.
"""
from __future__ import annotations

import glob
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


def generate() -> None:
    from grpc_tools import protoc
    import grpc_tools

    sources = sorted(glob.glob(os.path.join(HERE, "gallerist", "v1", "*.proto")))
    if not sources:
        return
    well_known = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{HERE}",
        f"-I{well_known}",
        f"--python_out={HERE}",
        f"--pyi_out={HERE}",
        f"--grpc_python_out={HERE}",
        *sources,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed on " + ", ".join(sources))
    # protoc writes absolute imports (`from gallerist.v1 import x_pb2`); the
    # package lives under `proto.`, so make them package-qualified.
    for path in glob.glob(os.path.join(HERE, "gallerist", "v1", "*_pb2*.py*")):
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        fixed = re.sub(r"^from gallerist\.v1 import", "from proto.gallerist.v1 import", text, flags=re.M)
        if fixed != text:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(fixed)


if __name__ == "__main__":
    generate()
