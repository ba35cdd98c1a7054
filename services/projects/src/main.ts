#!/usr/bin/env node
import { runMain } from "@canopy/kit";
import { projectsServiceDefinition } from "./service";

runMain(projectsServiceDefinition);
