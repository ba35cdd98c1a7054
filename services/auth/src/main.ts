#!/usr/bin/env node
import { runMain } from "@canopy/kit";
import { authServiceDefinition } from "./service";

runMain(authServiceDefinition);
