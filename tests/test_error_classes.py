"""Every error class of the project sits under one root, `GalleristError`, keeping its
`ValueError`/`OSError`/`RuntimeError` base, and no two error classes share a name."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import gallerist.ai
import gallerist.engine
import gallerist.server
from gallerist.engine.errors import GalleristError


def _modules() -> list:
    """Every module of the engine, ai and server packages (each walked from its own
    folder: an editable install maps them outside gallerist's own)."""
    names = []
    for package in (gallerist.engine, gallerist.ai, gallerist.server):
        names.append(package.__name__)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
                  if not m.name.endswith("__main__")]
    return [importlib.import_module(name) for name in names]


def _error_classes() -> list[type]:
    found = {}
    for module in _modules():
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (issubclass(cls, BaseException) and cls.__module__ == module.__name__
                    and not cls.__name__.startswith("_")):
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return list(found.values())


def test_every_error_class_derives_from_gallerist_error() -> None:
    classes = _error_classes()
    assert len(classes) >= 15
    outside = [f"{c.__module__}.{c.__name__}" for c in classes if not issubclass(c, GalleristError)]
    assert outside == []


def test_no_two_error_classes_share_a_name() -> None:
    names = [c.__name__ for c in _error_classes()]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


def test_errors_keep_their_standard_bases() -> None:
    """Callers that catch ValueError or ConnectionError still catch them."""
    from gallerist.ai.arena.records import RecordsError
    from gallerist.ai.bots.remote import RemoteError
    from gallerist.ai.net.model_file import ModelFileError
    from gallerist.ai.selfplay.records import SelfplayError
    from gallerist.server.limits import RequestError

    for cls in (RecordsError, ModelFileError, SelfplayError, RequestError):
        assert issubclass(cls, ValueError)
    assert issubclass(RemoteError, ConnectionError)
