#!/usr/bin/env node
import { runMain } from "@canopy/kit";
import { ldapServiceDefinition } from "./service";

runMain(ldapServiceDefinition);
