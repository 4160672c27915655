"""The local access token: one secret, in a file only its owner can read.

``mymcp serve --require-token`` (or ``MYMCP_REQUIRE_TOKEN=true``) makes every HTTP request
to ``/mcp`` present it as ``Authorization: Bearer <token>``, so that other accounts on the
same machine, which can reach the loopback port, cannot read the notebook through it.
``mymcp token`` prints it.

The token lives in ``~/.mnemosyne/token``, beside ``config.toml``, in the folder that holds
the user's MyMCP files. It is made on first use (:func:`ensure_token`): 32 random bytes,
URL-safe, written to a temporary file created with mode 0600 and linked into place, so no
other reader ever sees a partial or open file; the folder is created with mode 0700 when it
does not exist. A file may also hold a token of the user's own (32 to 256 characters of
letters, digits and ``-._~+/``, then ``=`` padding; surrounding white space is ignored).

An existing file is used only when it is safe: a regular file (not a link), owned by this
user, that nobody else can read or write, in a folder that is no link, belongs to this user
and nobody else can write. Anything else is refused with :class:`TokenFileError`; its mode is
never repaired silently, because a token others could read may already be known to them.
Reading (:func:`read_token`) never creates anything.
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import os
import pwd
import re
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from mymcp.plugin_api.setup import SetupError

REQUIRE_TOKEN_VARIABLE = "MYMCP_REQUIRE_TOKEN"
TOKEN_FILE_MESSAGE = "MyMCP access token file cannot be used"
# How the location is named where no absolute path may appear (the server's log).
SHOWN_PATH = "~/.mnemosyne/token"

_DIRECTORY, _FILE = ".mnemosyne", "token"
_SECRET_BYTES = 32
_MAX_FILE_BYTES = 1024
_SHAPE = re.compile(r"[A-Za-z0-9._~+/-]{32,256}=*")
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class TokenFileError(SetupError):
    """The token file (or its folder) is unsafe or unusable: a fixed sentence, and a note
    naming the path, what is wrong and what to do. It never carries the file's content."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(TOKEN_FILE_MESSAGE)
        self.path = path
        self.problem = problem
        self.add_note(f"{path} {problem}")


class RequireTokenError(SetupError):
    """``MYMCP_REQUIRE_TOKEN`` holds something other than ``true`` or ``false``."""

    def __init__(self) -> None:
        super().__init__(f"{REQUIRE_TOKEN_VARIABLE} must be 'true' or 'false'")
        self.add_note(
            f"{REQUIRE_TOKEN_VARIABLE} is set in the server's environment; make it true or "
            "false, or unset it"
        )


def token_path(home: Path | None = None) -> Path:
    """Where the token lives: ``<home>/.mnemosyne/token`` (home: the user's by default)."""
    return (Path.home() if home is None else home) / _DIRECTORY / _FILE


def read_token(home: Path | None = None) -> str | None:
    """The token, or None when there is no token file yet; never creates anything.

    Raises :class:`TokenFileError` when the file or its folder is unsafe or holds no token.
    """
    found = token_file(token_path(home))
    return None if found is None else found[0]


def ensure_token(home: Path | None = None) -> str:
    """The token, made first when there is none (two processes at once agree on one).

    Raises :class:`TokenFileError` when the file or its folder is unsafe, or cannot be made.
    """
    path = token_path(home)
    _make_directory(path.parent)
    found = token_file(path)
    if found is None:
        _create(path)
        found = token_file(path)
        if found is None:  # removed again at once: nothing sensible to hand out
            raise TokenFileError(path, "vanished right after it was made; try again")
    return found[0]


def token_matches(presented: str | bytes | None, expected: str) -> bool:
    """Whether ``presented`` is the token, compared in constant time."""
    if presented is None:
        return False
    if isinstance(presented, str):
        presented = presented.encode("utf-8", "surrogatepass")
    return hmac.compare_digest(presented, expected.encode("ascii"))


def require_token(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``MYMCP_REQUIRE_TOKEN`` asks for the token (unset: no).

    Raises :class:`RequireTokenError` for any value but ``true`` and ``false``.
    """
    value = (os.environ if environ is None else environ).get(REQUIRE_TOKEN_VARIABLE)
    if value not in (None, "true", "false"):
        raise RequireTokenError()
    return value == "true"


def owner_name(uid: int) -> str:
    """The user name of ``uid``, or the number when the system knows no such user."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


# --- reading ---------------------------------------------------------------------------------


def token_file(path: Path) -> tuple[str, os.stat_result] | None:
    """The token at ``path`` and its file's status (its mode and owner, for ``mymcp doctor``),
    or None when the folder or the file is missing; checked as :func:`read_token` says."""
    directory_fd = _open_directory(path.parent)
    if directory_fd is None:
        return None
    try:
        try:
            fd = os.open(_FILE, _READ_FLAGS, dir_fd=directory_fd)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise _os_refusal(path, error) from None
    finally:
        os.close(directory_fd)
    try:
        status = os.fstat(fd)
        _check_file(path, status)
        data = os.read(fd, _MAX_FILE_BYTES + 1)
    except OSError as error:
        raise _os_refusal(path, error) from None
    finally:
        os.close(fd)
    return _token_in(path, data), status


def _open_directory(directory: Path) -> int | None:
    """The folder, opened and checked; None when it does not exist."""
    try:
        fd = os.open(directory, _DIRECTORY_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _os_refusal(directory, error) from None
    try:
        _check_directory(directory, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check_directory(directory: Path, status: os.stat_result) -> None:
    if status.st_uid != os.geteuid():
        raise TokenFileError(directory, f"belongs to {owner_name(status.st_uid)}, not to you")
    if status.st_mode & 0o022:  # group or others may write
        mode = stat.S_IMODE(status.st_mode)
        text = f"can be written by group or others (mode {mode:04o}); run: chmod go-w {directory}"
        raise TokenFileError(directory, text)


def _check_file(path: Path, status: os.stat_result) -> None:
    if not stat.S_ISREG(status.st_mode):
        raise TokenFileError(path, "is not a regular file; remove it and a new token is made")
    if status.st_uid != os.geteuid():
        owner = owner_name(status.st_uid)
        raise TokenFileError(path, f"belongs to {owner}, not to you; remove it")
    if status.st_mode & 0o077:  # not the owner's alone
        mode = stat.S_IMODE(status.st_mode)
        raise TokenFileError(
            path,
            f"can be read or changed by group or others (mode {mode:04o}), so the token may be "
            f"known; remove it to get a new one, or if you are sure, run: chmod 600 {path}",
        )
    if status.st_size > _MAX_FILE_BYTES:
        raise TokenFileError(path, f"is larger than {_MAX_FILE_BYTES} bytes: it holds no token")


def _token_in(path: Path, data: bytes) -> str:
    text = data.strip(b" \t\r\n")
    if len(data) > _MAX_FILE_BYTES or not _SHAPE.fullmatch(text.decode("latin-1")):
        raise TokenFileError(
            path,
            "holds no token (one line of 32 to 256 letters, digits and -._~+/); remove it "
            "and a new token is made",
        )
    return text.decode("ascii")


def _os_refusal(path: Path, error: OSError) -> TokenFileError:
    if error.errno == errno.ELOOP or (error.errno == errno.ENOTDIR and path.is_symlink()):
        return TokenFileError(
            path, "is a symbolic link, which is not followed here; put the real one there"
        )
    if error.errno == errno.ENOTDIR:
        return TokenFileError(path, "is not a folder; it must be the folder that holds the token")
    reason = os.strerror(error.errno) if error.errno else "an operating-system error"
    return TokenFileError(path, f"cannot be used ({reason})")


# --- making ----------------------------------------------------------------------------------


def _make_directory(directory: Path) -> None:
    """The folder with mode 0700 when it is missing; an existing one is checked on read."""
    try:
        os.mkdir(directory, 0o700)
        fd = os.open(directory, _DIRECTORY_FLAGS)
        try:
            os.fchmod(fd, 0o700)  # exactly, whatever the umask
        finally:
            os.close(fd)
    except FileExistsError:
        return
    except OSError as error:
        raise _os_refusal(directory, error) from None


def _create(path: Path) -> None:
    """Write a new token to a private temporary file and link it into place.

    Linking never replaces a file: when another process made the token first, its token
    stays and this one is dropped.
    """
    directory_fd = _open_directory(path.parent)
    if directory_fd is None:
        raise TokenFileError(path.parent, "vanished while the token was made; try again")
    temporary = f".{_FILE}-{secrets.token_hex(8)}.tmp"
    try:
        fd = os.open(temporary, _CREATE_FLAGS, 0o600, dir_fd=directory_fd)
        try:
            os.fchmod(fd, 0o600)  # exactly, whatever the umask
            os.write(fd, f"{secrets.token_urlsafe(_SECRET_BYTES)}\n".encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        with contextlib.suppress(FileExistsError):
            os.link(temporary, _FILE, src_dir_fd=directory_fd, dst_dir_fd=directory_fd)
        os.fsync(directory_fd)
    except OSError as error:
        raise _os_refusal(path, error) from None
    finally:
        with contextlib.suppress(OSError):  # never made, or already gone
            os.unlink(temporary, dir_fd=directory_fd)
        os.close(directory_fd)
