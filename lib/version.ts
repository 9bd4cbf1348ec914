/** The toolwire framework version, written into every manifest as `framework_version`. */
export const FRAMEWORK_VERSION = "0.1.0";
