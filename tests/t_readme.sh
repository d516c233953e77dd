#!/bin/sh
# tests/t_readme.sh - the output blocks of README.md and docs/*.md are what
# their commands print, and their relative links resolve (tests/readme.sh)
exec sh tests/readme.sh
