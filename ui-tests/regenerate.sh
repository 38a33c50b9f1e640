#!/usr/bin/env bash
# Rewrites every ui-tests/**/*.stderr from the current compiler output. Review the diff like code.
set -euo pipefail
cd "$(dirname "$0")/.."
TRYBUILD=overwrite cargo test --test ui -- ui
git status --short ui-tests
