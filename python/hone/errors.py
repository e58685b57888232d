"""hone's exceptions: what the CLI reports with exit code 2 (bad input) and 3 (environment)."""


class InputError(ValueError):
    """Bad input: a config, an argument, a tensor. ``file``, ``line`` and ``column`` say where
    (``""`` and 0 when the error is about an argument of the call); ``message`` is the text
    without the position."""

    def __init__(self, text, file="", line=0, column=0, message=None):
        super().__init__(text)
        self.file = file
        self.line = line
        self.column = column
        self.message = text if message is None else message

    @property
    def position(self):
        """``"file:line:column"`` as the CLI prints it (``""`` when there is none)."""
        if not self.file:
            return ""
        if self.line <= 0:
            return self.file
        if self.column <= 0:
            return f"{self.file}:{self.line}"
        return f"{self.file}:{self.line}:{self.column}"


class EnvError(RuntimeError):
    """The environment cannot do what was asked: no driver, no GPU, a file that cannot be
    written, hone-worker missing."""
