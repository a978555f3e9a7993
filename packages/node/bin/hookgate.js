#!/usr/bin/env node
// The compiled CLI (`npm ci` builds it through the root `prepare` script).
import "../dist/src/bin.js"
