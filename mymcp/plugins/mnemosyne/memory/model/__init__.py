"""The record model: the words, values, record formats, references and errors of memory.

Plain values and pure functions; nothing here reads or writes a file. Every other room of the
memory domain builds on it, and it imports none of them.
"""
