#!/usr/bin/env bash
# The REST catalog test server whose tables live on S3 (moto): the `s3`
# instance of scripts/services/iceberg-rest.sh, under its own name so that
# scripts/test.sh can start and stop it like every other service.
#
#   scripts/services/iceberg-rest-s3.sh start|stop|status
exec "$(dirname "${BASH_SOURCE[0]}")/iceberg-rest.sh" "${1:-}" s3
