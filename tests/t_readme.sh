#!/bin/sh
# tests/t_readme.sh - the README's output blocks are what their commands print (tests/readme.sh)
exec sh tests/readme.sh
