"""Wrappers over a compiled template's output and modules, as Jinja2 has them: TemplateStream
(Template.stream(): the pieces of generate(), optionally buffered, dumped to a file) and TemplateExpression
(Environment.compile_expression(): an expression evaluated with the variables it is called with).
"""

from .runtime.undefined import Undefined

__all__ = ["TemplateStream", "TemplateExpression"]


class TemplateStream:
    """An iterator over a render's text pieces; dump(file) writes them, enable_buffering(size) joins them in
    groups of size non-empty pieces."""

    def __init__(self, pieces):
        self._pieces = pieces
        self.disable_buffering()

    def dump(self, fp, encoding=None, errors="strict"):
        """Write the stream to fp: a file name (written as UTF-8 unless encoding says otherwise) or a file
        object (text, or bytes when encoding is given)."""
        close = False
        if isinstance(fp, str):
            encoding = encoding or "utf-8"
            fp = open(fp, "wb")
            close = True
        try:
            pieces = (piece.encode(encoding, errors) for piece in self) if encoding is not None else self
            if hasattr(fp, "writelines"):
                fp.writelines(pieces)
            else:
                for piece in pieces:
                    fp.write(piece)
        finally:
            if close:
                fp.close()

    def disable_buffering(self):
        self._next = self._pieces.__next__
        self.buffered = False

    def enable_buffering(self, size=5):
        if size <= 1:
            raise ValueError("buffer size too small")
        self._next = self._buffered(size).__next__
        self.buffered = True

    def _buffered(self, size):
        buffer, count = [], 0
        for piece in self._pieces:
            buffer.append(piece)
            if piece:
                count += 1
            if count >= size:
                yield "".join(buffer)
                buffer, count = [], 0
        if count:
            yield "".join(buffer)

    def __iter__(self):
        return self

    def __next__(self):
        return self._next()


class TemplateExpression:
    """Environment.compile_expression(source): calling it evaluates the expression with the variables given (a
    mapping and/or keywords); an undefined result is None unless undefined_to_none is false."""

    def __init__(self, template, undefined_to_none):
        self._template = template
        self._undefined_to_none = undefined_to_none

    def __call__(self, *args, **kwargs):
        module = self._template.make_module(dict(*args, **kwargs))
        value = module["result"]
        if self._undefined_to_none and isinstance(value, Undefined):
            return None
        return value
