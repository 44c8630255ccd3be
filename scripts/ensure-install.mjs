#!/usr/bin/env node
import { ensureInstalled } from './lib/run.mjs';

ensureInstalled();
