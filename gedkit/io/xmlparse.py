"""XML as every XML reader of gedkit (GXL, CXL, GEXF, GraphML) parses it.

Python's expat never fetches an external entity or DTD, so no reader ever reads a local file
or the network through XML: such an entity is an error. But when a document names an external
DTD, expat cannot tell an entity declared only there from a mistake, and drops it from
attribute values without a word (in text it is an error): a GEXF ``value="&x;"`` would read as
``""``. :func:`parse_xml` refuses such documents instead, and documents that declare entities
of their own: graph files have no use for them, and nested ones expand without bound (a
GEXF node id of 3,000,000 characters from a few hundred bytes was read and searched).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.parsers import expat

from gedkit.errors import FormatError
from gedkit.text import MESSAGE_WIDTH, clipped, quoted

__all__ = ["parse_xml"]

_REFERENCE = re.compile(rb"&([^\s&;#<>\"']+);")
_PREDEFINED = {"lt", "gt", "amp", "quot", "apos"}


def parse_xml(path: Path) -> ET.Element:
    """The root element of an XML file, or a :class:`FormatError` naming the file.

    Namespaces are dropped from tag names: GXL and CXL files use plain names, but some
    writers declare a default namespace.
    """
    data = path.read_bytes()
    _check_entities(data, path)
    try:
        root = ET.fromstring(data)
    except ET.ParseError as err:
        raise FormatError(f"{path}: not well-formed XML ({err})") from None
    except (ValueError, LookupError) as err:  # an encoding expat cannot read
        raise FormatError(f"{path}: not readable XML ({err})") from None
    for element in root.iter():
        element.tag = element.tag.rpartition("}")[2]
    return root


class _Declared(Exception):
    """Raised by the entity check's parser at a document's first entity declaration."""


def _check_entities(data: bytes, path: Path) -> None:
    """Refuse a document that declares entities, and a reference to an entity that only an
    external DTD could declare."""
    text = _ascii(data)
    if b"<!DOCTYPE" not in text:
        return
    external: list[str] = []
    declared: list[str] = []
    parser = expat.ParserCreate()
    parser.StartDoctypeDeclHandler = lambda name, system, public, internal: (
        external.append(system or public) if system or public else None
    )

    def declaration(name: str, *rest: object) -> None:
        declared.append(name)
        raise _Declared  # (declarations come before any use: nothing is expanded)

    parser.EntityDeclHandler = declaration
    try:
        parser.Parse(data, True)
    except _Declared:
        pass
    except (expat.ExpatError, ValueError, LookupError):
        return  # malformed: the real parse says how
    if declared:
        raise FormatError(f"{path}: declares the XML entity {quoted(declared[0])}; gedkit reads "
                          "graph files without entities of their own (nested ones expand "
                          "without bound): write its value out")
    if not external:
        return
    for match in _REFERENCE.finditer(text):
        name = match[1].decode("ascii", "replace")
        if name not in _PREDEFINED and name not in declared:
            raise FormatError(
                f"{path}: entity &{clipped(name, MESSAGE_WIDTH)}; is not declared in the file; "
                f"gedkit does not read the external DTD {quoted(external[0])} that may declare it"
            )


def _ascii(data: bytes) -> bytes:
    """``data`` in an ASCII-compatible encoding, where markup can be searched byte-wise."""
    if b"\0" not in data[:4]:  # UTF-8, Latin-1, ASCII...: markup is plain bytes already
        return data
    for codec in ("utf-32", "utf-16"):
        try:
            return data.decode(codec).encode("utf-8")
        except UnicodeDecodeError:
            continue
    return data
