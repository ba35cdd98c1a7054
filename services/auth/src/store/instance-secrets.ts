// Moved to the kit, which every service with secrets at rest shares.
export { ensureInstanceSecret } from "@canopy/kit";
