#!/usr/bin/env node
import { runMain } from "@canopy/kit";
import { hooksServiceDefinition } from "./service";

runMain(hooksServiceDefinition);
