#!/usr/bin/env node
import { runMain } from "@canopy/kit";
import { groupsServiceDefinition } from "./service";

runMain(groupsServiceDefinition);
